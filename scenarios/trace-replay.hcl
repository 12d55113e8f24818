# trace-replay — does the server keep up with production traffic as it came?
#
# Synthetic load is uniform; production traffic is not: requests come in
# bursts, lengths vary by two orders of magnitude, and many prompts share
# long prefixes. This suite replays two public traces as they arrived, each
# request at its timestamp with exactly its prompt and answer lengths:
# the first 240 requests of the Azure LLM inference trace 2023
# (conversation service), whose prompts share nothing, and the first 200
# of the Mooncake FAST'25 conversation trace, whose requests that share a
# hash id share that 512-token block of their prompt, so the prefix cache
# sees the trace's reuse. The slices and their licenses are in
# testdata/traces/; point file at your own trace to gate on it instead.
#
# How to read the result: client.schedule_lag.p99 says how closely the
# sends kept the trace's timestamps; ttft and e2el are the latencies the
# trace's users would have seen; in the Mooncake run,
# server.prefix_cache_hit_rate should approach the share of prompt tokens
# that validate --plan calls reusable as a cached prefix.

suite "trace-replay" {
  description = "The Azure 2023 conversation and Mooncake FAST'25 conversation traces, replayed as they arrived"
}

variable "image" { default = "vllm/vllm-openai:v0.11.0" }
variable "model" { default = "meta-llama/Llama-3.1-8B-Instruct" }

# No GPU at hand? --var simulate=true runs every scenario on the embedded
# simulator's model of this deployment (no Docker either), and --var
# scale=0.1 sends a tenth of the requests for a quick look.
variable "simulate" { default = false }
variable "scale" { default = 1 }

server "vllm" {
  image           = var.image
  model           = var.model
  args            = ["--enable-prefix-caching"]
  env             = { HF_TOKEN = env("HF_TOKEN") }
  gpus            = "all"
  ipc             = "host"
  startup_timeout = "20m"
}

simulator "sim" {
  profile = "llama-3.1-8b-h100"
  model   = var.model
  args    = ["--enable-prefix-caching"]
}

scenario "azure_conversation" {
  description = "Azure LLM inference trace 2023, conversation: 240 requests over 68 s, no shared prefixes"
  target      = var.simulate ? simulator.sim : server.vllm
  workload {
    kind       = "trace"
    file       = "../testdata/traces/azure-llm-2023-conv-240.csv"
    format     = "azure"
    time_scale = 1 # 2 would replay it twice as fast
  }
  load {
    requests = ceil(240 * var.scale) # arrivals come from the trace
  }
  assert "ttft" {
    condition     = ttft.p95 < 1000
    error_message = "the trace's users would wait over a second for a first token"
  }
}

scenario "mooncake_conversation" {
  description = "Mooncake FAST'25 conversation trace: 200 requests over 72 s, prompts of 13.9k tokens on average sharing 512-token blocks"
  target      = var.simulate ? simulator.sim : server.vllm
  workload {
    kind       = "trace"
    file       = "../testdata/traces/mooncake-fast25-conversation-200.jsonl"
    format     = "mooncake"
    block_size = 512 # the tokens each hash id stands for (Mooncake's)
  }
  load {
    requests    = ceil(200 * var.scale)
    concurrency = 64 # at most this many in flight; later rows wait
  }
  # How much of the prompts a cache can serve depends on how many rows are
  # sent: `llmgate validate --plan` says 6.5 % of the first 4 rows' prompt
  # tokens are reusable (scale=0.02), 3.4 % of the first 20 (scale=0.1) and
  # 5.9 % of all 200; the simulator hit 0.065 and 0.034 of them.
  assert "cache_reuse" {
    condition     = server.prefix_cache_hit_rate > 0.02
    error_message = "the prefix cache should serve the blocks the trace's requests share"
  }
}

gate {
  tolerance "ttft.p95" { max_regression = "10%" }
  tolerance "server.prefix_cache_hit_rate" { max_regression = "+0.05" }
}
