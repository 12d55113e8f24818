# `llmgate gate --ab-var slowdown=1 --var slowdown=1.1`: the simulator of
# one H100 on both sides of an A/B in one job, the candidate's engine steps
# 10% slower. TPOT moves by the slowdown; the band is half of it.
suite "cli-ab" {
  description = "A/B tests"
}

variable "slowdown" {
  default = 1
}

variable "requests" {
  default = 160
}

# --time-scale of the simulator: real time where the gate judges TPOT; a
# test of the A/B's mechanics alone may run it faster.
variable "time_scale" {
  default = 1
}

simulator "sim" {
  profile = "llama-3.1-8b-h100"
  args    = ["--seed", "3", "--slowdown", var.slowdown, "--time-scale", var.time_scale]
}

defaults {
  target = simulator.sim
  load {
    warmup = 4
    seed   = 1
  }
}

scenario "chat" {
  workload {
    kind          = "random"
    input_tokens  = 128
    output_tokens = 16
    range_ratio   = 0.2
  }
  load {
    concurrency = 4
    requests    = var.requests
  }
  assert "ttft" {
    condition     = ttft.p95 < 60000
    error_message = "P95 TTFT must stay under a minute"
  }
}

gate {
  tolerance "tpot.p50" { max_regression = "5%" }
}
