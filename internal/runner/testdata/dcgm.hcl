# A simulator whose GPUs a DCGM exporter reports (the runner test serves the
# exporter on loopback and passes its URL): asserts on the gpu.* metrics,
# two that pass and one that fails.
suite "runner-dcgm" {}

variable "dcgm" {}

simulator "sim" {
  profile       = "tiny"
  dcgm_exporter = var.dcgm
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
    condition     = gpu.util.mean > 50 && gpu.memory_used.max == 72000
    error_message = "the GPUs must be busy"
  }
  assert "frugal" {
    condition     = gpu.power.max < 300
    error_message = "the GPUs must draw under 300 W together"
  }
  assert "efficient" {
    condition     = gpu.energy_per_token < 10 && gpu.energy > 0
    error_message = "under 10 J an output token"
  }
}
