# A suite of three server groups on the tiny simulator for the --shard,
# merge and gate --results tests: "big" weighs as much as the other two
# together, so two shards hold {big} and {small_a, small_b}.
suite "cli-shard" {}

variable "requests" {
  default = 8
}

simulator "sim" {
  profile = "tiny"
  # the tests count requests, not time: ten times faster than real time
  args = ["--time-scale", 0.1]
}

defaults {
  target = simulator.sim
  workload {
    kind          = "random"
    input_tokens  = 32
    output_tokens = 16
  }
  load {
    # tests run on a busy two-core machine under -race: judge the client loosely
    self_check {
      schedule_lag_p99 = "2s"
      achieved_rate    = 0.5
      in_flight        = 0.25
    }
    concurrency = 2
    requests    = var.requests
  }
}

scenario "big" {
  server_args = ["--seed", "1"]
  load {
    # tests run on a busy two-core machine under -race: judge the client loosely
    self_check {
      schedule_lag_p99 = "2s"
      achieved_rate    = 0.5
      in_flight        = 0.25
    }
    requests = 2 * var.requests
  }
  assert "answers" {
    condition     = error_rate == 0
    error_message = "the simulator must answer every request"
  }
}

scenario "small_a" {
  server_args = ["--seed", "2"]
}

scenario "small_b" {
  server_args = ["--seed", "3"]
}

# A band on a count, not a latency: a fresh run of a shard against a merged
# baseline is judged the same on a loaded test machine.
gate {
  tolerance "requests.completed" { max_regression = "10%" }
}
