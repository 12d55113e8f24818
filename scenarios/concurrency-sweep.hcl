# concurrency-sweep — where is the knee, and did it move?
#
# Throughput grows with concurrency until the GPU saturates; after that extra
# users only wait longer. This suite measures the same workload at 1 to 128
# concurrent users, one run per point, all on one server start.
#
# How to read the result: plot throughput.output_tokens and ttft.p95 against
# concurrency (the HTML report does). The knee is where throughput flattens
# while TTFT climbs. A regression shows as lower throughput at high
# concurrency (a scheduling or memory change) or higher TPOT at low
# concurrency (a kernel change). The assert encodes the SLO only up to the
# concurrency you promise to serve.

suite "concurrency-sweep" {
  description = "Latency and throughput from 1 to 128 concurrent users"
}

variable "image" { default = "vllm/vllm-openai:v0.11.0" }
variable "model" { default = "meta-llama/Llama-3.1-8B-Instruct" }
variable "max_users" {
  description = "the concurrency up to which the SLO must hold"
  default     = 32
}

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
  args            = ["--max-num-seqs", 256]
  env             = { HF_TOKEN = env("HF_TOKEN") }
  gpus            = "all"
  ipc             = "host"
  startup_timeout = "20m"
}

simulator "sim" {
  profile = "llama-3.1-8b-h100"
  model   = var.model
  args    = ["--max-num-seqs", 256]
}

scenario "users" {
  target = var.simulate ? simulator.sim : server.vllm
  sweep { concurrency = [1, 4, 16, 32, 64, 128] }
  workload {
    kind          = "random"
    input_tokens  = 1024
    output_tokens = 256
    range_ratio   = 0.1
  }
  load {
    concurrency = sweep.concurrency
    # enough requests that every user sends several; at least 100 per point
    requests = max(ceil(max(100, sweep.concurrency * 8) * var.scale), var.requests_per_user * sweep.concurrency)
    warmup   = ceil(sweep.concurrency * var.scale)
  }
  goodput {
    ttft = 500
    tpot = 50
  }
  assert "slo_up_to_promise" {
    condition     = (ttft.p95 < 500 && tpot.p95 < 50) || sweep.concurrency > var.max_users
    error_message = "up to ${var.max_users} concurrent users, P95 TTFT must stay under 500 ms and P95 TPOT under 50 ms"
  }
}

gate {
  tolerance "throughput.output_tokens" { max_regression = "5%" }
  tolerance "ttft.p95" { max_regression = "10%" }
  tolerance "tpot.p50" { max_regression = "5%" }
}
