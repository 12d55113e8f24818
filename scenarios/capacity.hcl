# capacity — how many users can this deployment serve while it meets our SLO?
#
# Instead of measuring fixed loads, the "max_users" scenario searches for the
# largest concurrency at which P95 TTFT stays under 500 ms and P95 TPOT under
# 9 ms (text streams at 110 tokens/s or faster for 95% of requests): it doubles the number of users from 1 until the SLO breaks, bisects
# between the last load that met it and the first that did not, and probes
# both ends of that bracket again where a probe was close. A probe stops
# early once its SLO can no longer be met, or is met with confidence, so the
# search costs a fraction of a sweep over the same loads. The server starts
# once for every probe.
#
# How to read the result: the run table ends with "max users under SLO
# (ttft.p95 < var.ttft_ms && tpot.p95 < var.tpot_ms): 48, fails at 52" and
# one row per probe.
# The answer is the metric capacity.concurrency: the assert holds it to the
# promise you make (var.min_users), and the gate's tolerance turns a drop
# into a regression ("max users under SLO: 64 → 48" on the PR). "fails at"
# bounds the answer from above: the true capacity lies between the two.

suite "capacity" {
  description = "The largest concurrency that meets the latency SLO"
}

variable "image" { default = "vllm/vllm-openai:v0.11.0" }
variable "model" { default = "meta-llama/Llama-3.1-8B-Instruct" }
variable "ttft_ms" { default = 500 }
variable "tpot_ms" { default = 9 }
variable "min_users" {
  description = "the concurrency the deployment must serve within its SLO"
  default     = 8
}

# No GPU at hand? --var simulate=true runs every scenario on the embedded
# simulator's model of this deployment (no Docker either), and --var
# scale=0.1 sends a tenth of the requests for a quick look.
variable "simulate" { default = false }
variable "scale" { default = 1 }

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

scenario "max_users" {
  target = var.simulate ? simulator.sim : server.vllm
  workload {
    kind          = "random"
    input_tokens  = 1024
    output_tokens = 256
    range_ratio   = 0.1
  }
  load {
    # per probe, and at least two per user; a probe decided early sends fewer
    requests = ceil(200 * var.scale)
    warmup   = ceil(16 * var.scale)
  }
  capacity {
    vary = "concurrency"
    min  = 4
    max  = 128
    slo  = ttft.p95 < var.ttft_ms && tpot.p95 < var.tpot_ms
  }
  assert "enough_users" {
    condition     = capacity.concurrency >= var.min_users
    error_message = "the deployment must serve ${var.min_users} concurrent users within the SLO"
  }
}

gate {
  tolerance "capacity.concurrency" { max_regression = "10%" }
}
