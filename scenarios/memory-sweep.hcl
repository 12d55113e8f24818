# memory-sweep — how much GPU memory should vLLM take for its KV cache?
#
# --gpu-memory-utilization sets the fraction of GPU memory vLLM may use;
# what is left after the weights becomes KV cache. Too little and requests
# queue or get preempted under load; too much and nothing is left for other
# processes (or a second model). Each point needs its own server start, so
# the plan has one server group per value (`llmgate validate --plan` shows
# it).
#
# How to read the result: server.kv_cache_usage.max near 1 together with
# server.preemptions above 0 means the cache is the bottleneck at that point;
# throughput.output_tokens stops improving at the point where it no longer
# is. Choose the smallest value past that knee.

suite "memory-sweep" {
  description = "KV-cache size vs throughput and preemptions"
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
  args            = ["--max-num-seqs", 256, "--max-model-len", 8192]
  env             = { HF_TOKEN = env("HF_TOKEN") }
  gpus            = "all"
  ipc             = "host"
  startup_timeout = "20m"
}

simulator "sim" {
  profile = "llama-3.1-8b-h100"
  model   = var.model
  args    = ["--max-num-seqs", 256, "--max-model-len", 8192]
}

scenario "memory" {
  target = var.simulate ? simulator.sim : server.vllm
  sweep { gpu_memory_utilization = [0.5, 0.6, 0.7, 0.8, 0.9] }
  # a new server per sweep point: these args are appended to the server's
  server_args = ["--gpu-memory-utilization", sweep.gpu_memory_utilization]
  workload {
    kind          = "random"
    input_tokens  = 2048
    output_tokens = 512
    range_ratio   = 0.2
  }
  load {
    concurrency = 128 # enough sequences in flight to fill a small cache
    requests    = max(ceil(600 * var.scale), var.requests_per_user * 128)
    warmup      = ceil(32 * var.scale)
  }
  assert "no_preemption_when_roomy" {
    condition     = server.preemptions == 0 || sweep.gpu_memory_utilization < 0.8
    error_message = "with 80% or more of the GPU for vLLM, 128 concurrent 2.5k-token sequences must fit without preemption"
  }
}

gate {
  tolerance "throughput.output_tokens" { max_regression = "5%" }
  tolerance "server.preemptions" { max_regression = "+10" }
}
