# A small suite for Gate's tests: the tiny simulator and a few requests, a
# tolerance on requests.completed, which does not depend on the machine's
# speed, so a baseline written by the test decides the verdict exactly.
suite "runner-gate" {
  description = "gate tests"
}

variable "ttft_limit" {
  default = 60000
}

variable "band" {
  default = "25%"
}

simulator "sim" {
  profile = "tiny"
}

scenario "chat" {
  target = simulator.sim
  workload {
    kind          = "random"
    input_tokens  = 16
    output_tokens = 64 # long enough that a loaded machine's client gaps stay small beside them
  }
  load {
    # tests run on a busy two-core machine under -race: judge the client loosely
    self_check {
      schedule_lag_p99 = "2s"
      achieved_rate    = 0.5
      in_flight        = 0.25
    }
    concurrency = 2
    requests    = 8
  }
  assert "fast_enough" {
    condition     = ttft.p95 < var.ttft_limit
    error_message = "P95 TTFT must stay under the limit"
  }
}

gate {
  baseline = "gate-baseline.json"
  tolerance "requests.completed" { max_regression = var.band }
}
