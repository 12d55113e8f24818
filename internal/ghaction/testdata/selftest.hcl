# The GitHub Action's self-test suite (.github/workflows/selftest.yml): small
# and fast against the embedded simulator, with a knob to plant a regression.
suite "llmgate-selftest" {
  description = "action self-test: one small chat scenario on the tiny simulator"
}

variable "slowdown" {
  default     = "1"
  description = "simulator slowdown factor; 3 plants a clear regression"
}

simulator "tiny" {
  profile = "tiny"
  args    = ["--seed", "7", "--slowdown", var.slowdown]
}

defaults {
  target = simulator.tiny
}

scenario "chat" {
  description = "short prompts, short streamed answers"
  workload {
    kind          = "random"
    input_tokens  = 64
    output_tokens = 48
  }
  load {
    # CI runners are busy: judge the client loosely
    self_check {
      schedule_lag_p99 = "2s"
      achieved_rate    = 0.5
      in_flight        = 0.25
    }
    concurrency = 4
    requests    = 80
  }
  assert "ttft_bounded" {
    condition     = ttft.p95 < 5000
    error_message = "P95 TTFT must stay under 5 s even on a loaded CI runner"
  }
  assert "no_errors" {
    condition     = error_rate == 0
    error_message = "the simulator must answer every request"
  }
}

# Wide bands on metrics the simulator's step times dominate (not TTFT, which
# is a few ms here and mostly scheduler noise on a busy runner): a pass stays a
# pass on a loaded machine, and a 3x slowdown is far past them.
gate {
  alpha = 0.05
  tolerance "e2el.p95" { max_regression = "25%" }
  tolerance "throughput.output_tokens" { max_regression = "25%" }
}
