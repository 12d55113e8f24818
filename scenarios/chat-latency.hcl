# chat-latency — are prefill-heavy and decode-heavy requests both fast enough?
#
# Chat traffic is asymmetric. A short question with a long answer
# (short-in/long-out) is decode-bound: users notice TPOT, how fast text
# streams. A long document with a short answer (long-in/short-out, e.g.
# summarisation or RAG) is prefill-bound: users notice TTFT. A change that
# helps one often hurts the other (bigger prefill chunks, scheduling policy,
# max-num-batched-tokens), so this suite measures both at the same
# concurrency and gates each on the metric its users feel.
#
# How to read the result: for short_in_long_out look at tpot.p50/p95 and
# e2el; for long_in_short_out look at ttft.p95. A regression in one scenario
# only points at prefill or decode; in both, at the whole server.

suite "chat-latency" {
  description = "Short-in/long-out vs long-in/short-out on Llama 3.1 8B"
}

variable "image" { default = "vllm/vllm-openai:v0.11.0" }
variable "model" { default = "meta-llama/Llama-3.1-8B-Instruct" }

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
  args            = ["--max-num-seqs", 128, "--max-model-len", 8192]
  env             = { HF_TOKEN = env("HF_TOKEN") }
  gpus            = "all"
  ipc             = "host"
  startup_timeout = "20m"
}

simulator "sim" {
  profile = "llama-3.1-8b-h100"
  model   = var.model
  args    = ["--max-num-seqs", 128, "--max-model-len", 8192]
}

defaults {
  target = var.simulate ? simulator.sim : server.vllm
  load {
    concurrency = 16
    requests    = max(ceil(300 * var.scale), var.requests_per_user * 16)
    warmup      = ceil(20 * var.scale)
    seed        = 7
  }
  goodput {
    ttft = 1000
    tpot = 50
  }
}

scenario "short_in_long_out" {
  description = "a question and a long streamed answer: decode-bound"
  workload {
    kind          = "random"
    input_tokens  = 128
    output_tokens = 1024
    range_ratio   = 0.1
  }
  assert "streams_fast" {
    condition     = tpot.p95 < 40
    error_message = "long answers must stream at better than 40 ms per token (25 tok/s) for 95% of requests"
  }
}

scenario "long_in_short_out" {
  description = "a long document and a short answer: prefill-bound"
  workload {
    kind          = "random"
    input_tokens  = 4096
    output_tokens = 128
    range_ratio   = 0.1
  }
  assert "first_token" {
    condition     = ttft.p95 < 1500
    error_message = "a 4k-token prompt must get its first token within 1.5 s for 95% of requests"
  }
}

gate {
  tolerance "tpot.p95" { max_regression = "10%" }
  tolerance "ttft.p95" { max_regression = "10%" }
  tolerance "e2el.p99" { max_regression = "+2s" }
}
