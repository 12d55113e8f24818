# long-context — how do 8k to 30k-token prompts behave?
#
# Long prompts are prefill-heavy: TTFT grows with the prompt, and with chunked
# prefill a long prompt is split across steps so it doesn't stall other
# users' decoding. The KV cache of a 30k-token sequence is large (about
# 3.75 GiB for Llama 3.1 8B in BF16), so few fit at once. --max-model-len
# must cover prompt plus answer.
#
# How to read the result: ttft.p50 per point shows prefill cost against
# length (roughly linear, then worse as attention dominates), ttft.p95 what a
# prompt waits behind other users' long prefills on top; tpot.p95 shows
# whether long prefills disturb streaming for everyone else; preemptions
# above 0 mean the cache ran out at that length.

suite "long-context" {
  description = "Prefill cost and interference for 8k-30k-token prompts"
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
  image = var.image
  model = var.model
  args = [
    "--max-model-len", 32768,
    "--enable-chunked-prefill",
    "--max-num-batched-tokens", 8192,
    "--gpu-memory-utilization", 0.92,
  ]
  env             = { HF_TOKEN = env("HF_TOKEN") }
  gpus            = "all"
  ipc             = "host"
  startup_timeout = "20m"
}

simulator "sim" {
  profile = "llama-3.1-8b-h100"
  model   = var.model
  args    = [
    "--max-model-len", 32768,
    "--enable-chunked-prefill",
    "--max-num-batched-tokens", 8192,
    "--gpu-memory-utilization", 0.92,
  ]
}

scenario "prompt_length" {
  target = var.simulate ? simulator.sim : server.vllm
  sweep { input_tokens = [8000, 16000, 30000] }
  workload {
    kind          = "random"
    input_tokens  = sweep.input_tokens
    output_tokens = 256
    range_ratio   = 0.05
  }
  load {
    concurrency = 8
    requests    = max(ceil(120 * var.scale), var.requests_per_user * 8)
    warmup      = ceil(8 * var.scale)
    timeout     = "5m"
  }
  # The median, not the tail: at 8 users a long prompt often waits behind
  # others' prefills, and ttft.p95 is mostly that wait (on the simulator at
  # --var scale=0.1, 30,000 tokens: ttft.p50 2.1 s, ttft.p95 5.7 s, of which
  # server.prefill_time.p95 1.9 s and server.queue_time.p95 4.6 s).
  assert "ttft" {
    condition     = ttft.p50 < sweep.input_tokens / 10 # ms: a budget of 0.1 ms per prompt token
    error_message = "the median request's prefill, with its wait behind other users' prefills, must stay under 0.1 ms per prompt token"
  }
  assert "decode_not_starved" {
    condition     = tpot.p95 < 80
    error_message = "chunked prefill should keep other users streaming at better than 80 ms per token"
  }
}

gate {
  tolerance "ttft.p50" { max_regression = "10%" }
  tolerance "tpot.p95" { max_regression = "15%" }
}
