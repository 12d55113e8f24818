# A small suite for the runner's tests: the tiny simulator profile and a few
# requests per run, so the whole plan takes a second or two.
suite "runner-tiny" {
  description = "two scenarios on one server, a sweep that restarts it"
}

variable "ttft_limit" {
  default = 60000
}

simulator "sim" {
  profile = "tiny"
  # the tests check what runs record, not their times: ten times faster
  args = ["--time-scale", 0.1]
}

defaults {
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
    warmup = 2
  }
  goodput {
    ttft = 60000
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
    concurrency = 4
    requests    = 24
  }
  assert "fast_enough" {
    condition     = ttft.p95 < var.ttft_limit
    error_message = "P95 TTFT must stay under the limit"
  }
  assert "no_errors" {
    condition = error_rate == 0
  }
}

scenario "sweep" {
  sweep {
    concurrency = [1, 2]
  }
  load {
    # tests run on a busy two-core machine under -race: judge the client loosely
    self_check {
      schedule_lag_p99 = "2s"
      achieved_rate    = 0.5
      in_flight        = 0.25
    }
    concurrency = sweep.concurrency
    requests    = 6
  }
}

scenario "restart" {
  sweep {
    max_num_seqs = [2, 4]
  }
  server_args = ["--max-num-seqs", sweep.max_num_seqs]
  load {
    # tests run on a busy two-core machine under -race: judge the client loosely
    self_check {
      schedule_lag_p99 = "2s"
      achieved_rate    = 0.5
      in_flight        = 0.25
    }
    concurrency = 2
    requests    = 6
  }
}
