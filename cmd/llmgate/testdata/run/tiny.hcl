# A small suite for `llmgate run`'s tests: the tiny simulator profile and a
# few requests per run.
suite "cli-tiny" {}

variable "ttft_limit" {
  default = 60000
}

simulator "sim" {
  profile = "tiny"
  # the tests check what a run records, not its times: ten times faster
  args = ["--time-scale", 0.1]
}

defaults {
  target = simulator.sim
  workload {
    kind          = "random"
    input_tokens  = 32
    output_tokens = 32
  }
}

scenario "chat" {
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

scenario "batch" {
  load {
    # tests run on a busy two-core machine under -race: judge the client loosely
    self_check {
      schedule_lag_p99 = "2s"
      achieved_rate    = 0.5
      in_flight        = 0.25
    }
    concurrency = 4
    requests    = 8
  }
}
