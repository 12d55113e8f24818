# More users than this process may open connections for: refused before
# anything starts (--var n=... sets it).
variable "n" {
  default = 1000000
}

simulator "sim" {
  profile = "tiny"
}

scenario "crowd" {
  target = simulator.sim
  workload {
    kind          = "random"
    input_tokens  = 8
    output_tokens = 2
  }
  load {
    # tests run on a busy two-core machine under -race: judge the client loosely
    self_check {
      schedule_lag_p99 = "2s"
      achieved_rate    = 0.5
      in_flight        = 0.25
    }
    concurrency = var.n
    requests    = var.n
  }
}
