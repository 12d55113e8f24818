# mixed-lengths — do short and long prompts regress alike?
#
# Real traffic mixes short questions with long documents, and a change rarely
# moves them alike: slower prefill compute (another GPU, attention kernel or
# quantisation) costs a long prompt far more milliseconds than a short one,
# and a smaller prefill budget per step (--max-num-batched-tokens) splits long
# prompts into chunks that short prompts then queue behind. Averaged over
# all requests the difference is lost; split by input length it is plain.
# This suite sends prompts of 200 to 3,900 tokens and judges them in two
# buckets split at 2,048 tokens (short and long) and in quartiles drawn from
# the prompts themselves (q1 the shortest quarter, q4 the longest), which are
# the same for a baseline and its candidate.
#
# How to read the result: compare length_bucket.long.ttft.p50 with
# length_bucket.short.ttft.p50 (and q4 with q1), in milliseconds and in %.
# A change that grows the long bucket's TTFT by many more milliseconds
# points at prefill; one that grows every bucket by the same fraction, at
# the whole engine step. The "by turn and input length" table of the report
# shows every bucket.

suite "mixed-lengths" {
  description = "Short and long prompts judged apart, by declared and quantile buckets"
}

variable "image" { default = "vllm/vllm-openai:v0.11.0" }
variable "model" { default = "meta-llama/Llama-3.1-8B-Instruct" }

# The prefill budget per engine step: --var max_batched_tokens=64 shows
# what chunking long prompts finely costs each bucket. vLLM refuses to start
# with fewer batched tokens than --max-num-seqs (1024 by default on an
# H100), so the suite caps the batch at 16 sequences, four times the
# requests it keeps in flight: a budget down to 16 tokens starts.
variable "max_batched_tokens" { default = 8192 }
variable "max_num_seqs" { default = 16 }

# No GPU at hand? --var simulate=true runs every scenario on the embedded
# simulator's model of this deployment (no Docker either), and --var
# scale=0.1 sends a tenth of the requests for a quick look.
variable "simulate" { default = false }
variable "scale" { default = 1 }
# Scaled down, a run still sends at least requests_per_user measured requests
# per user, so that it reaches the concurrency it is named after (at 2 or fewer
# per user it is mostly ramp up and down). 0 lets scale cut below that; such
# runs then say on screen and in the reports that they never reached it.
variable "requests_per_user" { default = 4 }

server "vllm" {
  image           = var.image
  model           = var.model
  args            = ["--max-model-len", 8192, "--enable-chunked-prefill", "--max-num-batched-tokens", var.max_batched_tokens, "--max-num-seqs", var.max_num_seqs]
  env             = { HF_TOKEN = env("HF_TOKEN") }
  gpus            = "all"
  ipc             = "host"
  startup_timeout = "20m"
}

simulator "sim" {
  profile = "llama-3.1-8b-h100"
  model   = var.model
  args    = ["--max-model-len", 8192, "--enable-chunked-prefill", "--max-num-batched-tokens", var.max_batched_tokens, "--max-num-seqs", var.max_num_seqs]
}

defaults {
  target = var.simulate ? simulator.sim : server.vllm
  load {
    concurrency = 4
    requests    = max(ceil(400 * var.scale), var.requests_per_user * 4)
    warmup      = ceil(16 * var.scale)
    seed        = 11
  }
}

scenario "short_and_long" {
  description = "prompts of 200-3,900 tokens in two buckets at 2,048"
  workload {
    kind                = "random"
    input_tokens        = 2048
    output_tokens       = 128
    range_ratio         = 0.9
    length_buckets      = [2048]
    length_bucket_names = ["short", "long"]
  }
  assert "long_prompts" {
    condition     = length_bucket.long.ttft.p95 < 1000
    error_message = "prompts of 2k-4k tokens must get their first token within 1 s for 95% of requests"
  }
  assert "short_prompts" {
    condition     = length_bucket.short.ttft.p95 < 500
    error_message = "prompts under 2k tokens must get their first token within 0.5 s for 95% of requests"
  }
}

scenario "quartiles" {
  description = "the same mix in four buckets of equal counts"
  workload {
    kind             = "random"
    input_tokens     = 2048
    output_tokens    = 128
    range_ratio      = 0.9
    length_quantiles = 4
  }
  assert "longest_quarter" {
    condition     = length_bucket.q4.ttft.p95 < 1000
    error_message = "the longest quarter of prompts must get its first token within 1 s for 95% of requests"
  }
}

# Medians per bucket: each bucket holds a part of the requests, and a
# median of a hundred requests moves less than their P95.
gate {
  tolerance "ttft.p95" { max_regression = "10%" }
  tolerance "length_bucket.short.ttft.p50" { max_regression = "10%" }
  tolerance "length_bucket.long.ttft.p50" { max_regression = "10%" }
  tolerance "length_bucket.q1.ttft.p50" { max_regression = "10%" }
  tolerance "length_bucket.q4.ttft.p50" { max_regression = "10%" }
}
