# A run whose server's GPUs are sampled (the runner test supplies the
# readings): asserts on the gpu.* metrics, one that passes, one that fails.
suite "runner-gpu" {}

simulator "sim" {
  profile = "tiny"
  # the tests read GPU samples, not times: ten times faster than real time
  args = ["--time-scale", 0.1]
}

scenario "chat" {
  target = simulator.sim
  workload {
    kind          = "random"
    input_tokens  = 32
    output_tokens = 64
  }
  load {
    # tests run on a busy two-core machine under -race: judge the client loosely
    self_check {
      schedule_lag_p99 = "2s"
      achieved_rate    = 0.5
      in_flight        = 0.25
    }
    warmup      = 2
    concurrency = 2
    requests    = 40
  }
  assert "busy" {
    condition     = gpu.util.mean > 50
    error_message = "the GPUs must be busy"
  }
  assert "frugal" {
    condition     = gpu.power.max < 500
    error_message = "the GPUs must draw under 500 W together"
  }
}
