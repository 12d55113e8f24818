# multi-turn — do follow-up turns of a conversation get faster, as they should?
#
# In a chat, each turn resends the whole conversation so far. With prefix
# caching the earlier turns' KV is reused and a follow-up's TTFT depends on
# the new message only; without it, TTFT grows with every turn. This suite
# runs conversations of five turns over /v1/chat/completions with prefix
# caching on, so a regression in cache reuse shows up as TTFT growth.
#
# How to read the result: ttft.p50 should stay close to a single-turn
# prompt's; server.prefix_cache_hit_rate should be high. e2el covers one
# turn, not the whole conversation.

suite "multi-turn" {
  description = "Five-turn conversations with prefix caching"
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
  args            = ["--enable-prefix-caching", "--max-model-len", 16384]
  env             = { HF_TOKEN = env("HF_TOKEN") }
  gpus            = "all"
  ipc             = "host"
  startup_timeout = "20m"
}

simulator "sim" {
  profile = "llama-3.1-8b-h100"
  model   = var.model
  args    = ["--enable-prefix-caching", "--max-model-len", 16384]
}

scenario "conversations" {
  target = var.simulate ? simulator.sim : server.vllm
  workload {
    kind          = "conversation"
    chat          = true
    turns         = 5
    input_tokens  = 200 # each new user message
    output_tokens = 300 # each assistant answer
    range_ratio   = 0.3
  }
  load {
    concurrency = 24 # conversations in flight
    requests    = max(ceil(500 * var.scale), var.requests_per_user * 24)
    warmup      = ceil(24 * var.scale)
  }
  goodput {
    ttft = 400
    tpot = 50
  }
  assert "follow_ups_stay_fast" {
    condition     = ttft.p90 < 400
    error_message = "later turns must not pay for re-prefilling the whole conversation"
  }
  assert "cache_reuse" {
    condition     = server.prefix_cache_hit_rate > 0.5
    error_message = "most of each follow-up's prompt should come from the prefix cache"
  }
}

gate {
  tolerance "ttft.p90" { max_regression = "10%" }
  tolerance "goodput.ratio" { max_regression = "+0.05" }
}
