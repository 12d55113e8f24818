# An open loop for the runner's tests of what its samplers cost the
# schedule: 20 requests/s against the tiny simulator (or --target).
suite "runner-openloop" {
  description = "an open loop whose /metrics the test slows"
}

simulator "sim" {
  profile = "tiny"
}

scenario "open" {
  target = simulator.sim
  workload {
    kind          = "random"
    input_tokens  = 16
    output_tokens = 16
  }
  load {
    # judged by the test itself: the run must not be invalid for it
    self_check {
      schedule_lag_p99 = "10s"
      achieved_rate    = 0.1
      in_flight        = 0.1
    }
    rate       = 20
    burstiness = 50 # nearly even gaps
    warmup     = 4
    requests   = 40
  }
}
