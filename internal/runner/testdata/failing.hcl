# The tiny simulator answering every request with an error.
suite "runner-failing" {}

simulator "broken" {
  profile = "tiny"
  args    = ["--fail-rate", "1"]
}

scenario "all_fail" {
  target = simulator.broken
  workload {
    kind          = "random"
    input_tokens  = 16
    output_tokens = 4
  }
  load {
    # tests run on a busy two-core machine under -race: judge the client loosely
    self_check {
      schedule_lag_p99 = "2s"
      achieved_rate    = 0.5
      in_flight        = 0.25
    }
    concurrency = 2
    requests    = 4
  }
  assert "latency" {
    condition = ttft.p95 < 1000
  }
}
