# A small suite for `llmgate gate`'s tests, sent with --target to an
# in-process simulator; its bands are wide so that only a planted slowdown
# (3x) is a regression on a loaded test machine.
suite "cli-gate" {
  description = "gate tests"
}

variable "ttft_limit" {
  default = 60000
}

simulator "sim" {
  profile = "tiny"
}

defaults {
  target = simulator.sim
}

scenario "chat" {
  workload {
    kind          = "random"
    input_tokens  = 32
    output_tokens = 48
  }
  load {
    # tests run on a busy two-core machine under -race: judge the client loosely
    self_check {
      schedule_lag_p99 = "2s"
      achieved_rate    = 0.5
      in_flight        = 0.25
    }
    concurrency = 4
    requests    = 40
  }
  assert "fast_enough" {
    condition     = ttft.p95 < var.ttft_limit
    error_message = "P95 TTFT must stay under the limit"
  }
}

gate {
  baseline = "baseline.json"
  tolerance "e2el.p95" { max_regression = "50%" }
  tolerance "throughput.output_tokens" { max_regression = "50%" }
}
