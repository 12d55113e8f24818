# A/B tests: the tiny simulator, whose --slowdown the two sides set apart
# (--ab-var slowdown=1 --var slowdown=1.5), and a run with a warmup and
# quantile length buckets.
suite "runner-ab" {}

variable "slowdown" {
  default = 1
}

variable "requests" {
  default = 40
}

simulator "sim" {
  profile = "tiny"
  args    = ["--seed", "7", "--slowdown", var.slowdown]
}

scenario "chat" {
  target = simulator.sim
  workload {
    kind          = "random"
    input_tokens  = 64
    output_tokens = 32
    range_ratio   = 0.5
    # quantile buckets: both sides and every block must share the edges
    length_quantiles = 2
  }
  load {
    concurrency = 2
    requests    = var.requests
    warmup      = 2
  }
  assert "fast_enough" {
    condition = ttft.p95 < 60000
  }
}

gate {
  tolerance "tpot.p50" {
    max_regression = "10%"
  }
}
