# A small suite for the history tests: the tiny simulator profile, one
# closed-loop run of a few dozen requests, and an engine slowdown to plant
# steps and drifts with (--var slowdown=1.3).
suite "history-tiny" {
  description = "one short run on the tiny simulator"
}

variable "slowdown" { default = 1 }

simulator "sim" {
  profile = "tiny"
  args    = ["--slowdown", var.slowdown]
}

scenario "chat" {
  target = simulator.sim
  workload {
    kind          = "random"
    input_tokens  = 32
    output_tokens = 32
  }
  load {
    # tests run on a busy two-core machine under -race: judge the client loosely
    self_check {
      schedule_lag_p99 = "2s"
      achieved_rate    = 0.5
      in_flight        = 0.25
    }
    warmup      = 4
    seed        = 1
    concurrency = 4
    requests    = 60
  }
}

# The engine's step time decides TPOT and E2EL; TTFT at 4 ms on a busy
# two-core machine is the machine's noise more than the simulator's.
gate {
  tolerance "tpot.p50" { max_regression = "10%" }
  tolerance "e2el.p50" { max_regression = "10%" }
}
