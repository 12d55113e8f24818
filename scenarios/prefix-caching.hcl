# prefix-caching — how much does automatic prefix caching buy on shared prompts?
#
# Many applications send the same long system prompt or document with every
# request. With --enable-prefix-caching vLLM keeps the KV blocks of shared
# prefixes and skips their prefill on later requests. This suite sends a
# workload where every request starts with one of four 2,048-token prefixes
# and runs it twice, caching on and off, each on its own server.
#
# How to read the result: compare ttft.p50 and throughput between
# caching=on and caching=off; server.prefix_cache_hit_rate in the "on" run
# should be high (most of each prompt is shared). If the gap shrinks after a
# change, caching got less effective (eviction, block size, a cache-salting
# change).

suite "prefix-caching" {
  description = "Automatic prefix caching on vs off with shared 2k-token prefixes"
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
  env             = { HF_TOKEN = env("HF_TOKEN") }
  gpus            = "all"
  ipc             = "host"
  startup_timeout = "20m"
}

simulator "sim" {
  profile = "llama-3.1-8b-h100"
  model   = var.model
}

scenario "shared_prefix" {
  target = var.simulate ? simulator.sim : server.vllm
  sweep { caching = ["on", "off"] }
  server_args = [sweep.caching == "on" ? "--enable-prefix-caching" : "--no-enable-prefix-caching"]
  workload {
    kind          = "prefix"
    prefix_tokens = 2048 # shared by every request of a group
    prefix_groups = 4    # four distinct prefixes, rotated
    input_tokens  = 256  # the unique part after the prefix
    output_tokens = 128
  }
  load {
    concurrency = 32
    requests    = max(ceil(400 * var.scale), var.requests_per_user * 32)
    warmup      = ceil(16 * var.scale) # fills the cache with the four prefixes
  }
  assert "cache_hits" {
    condition     = sweep.caching == "off" || server.prefix_cache_hit_rate > 0.6
    error_message = "with caching on, most prompt tokens should come from the prefix cache"
  }
  assert "caching_helps_ttft" {
    condition     = sweep.caching == "off" || ttft.p50 < 150
    error_message = "with 2k-token prefixes cached, median TTFT should be well under a full prefill"
  }
}

gate {
  tolerance "ttft.p50" { max_regression = "10%" }
  tolerance "server.prefix_cache_hit_rate" { max_regression = "+0.05" }
}
