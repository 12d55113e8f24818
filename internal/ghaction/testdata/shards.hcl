# The act shard self-test's suite (.ci/act-shards.yml): two server groups on
# the tiny simulator, one per shard of two, small and fast.
suite "llmgate-shard-selftest" {
  description = "action self-test: two shards on the tiny simulator, merged and gated"
}

simulator "tiny" {
  profile = "tiny"
}

defaults {
  target = simulator.tiny
  workload {
    kind          = "random"
    input_tokens  = 64
    output_tokens = 32
  }
  load {
    # CI runners are busy: judge the client loosely
    self_check {
      schedule_lag_p99 = "2s"
      achieved_rate    = 0.5
      in_flight        = 0.25
    }
    concurrency = 4
    requests    = 40
  }
}

scenario "chat" {
  server_args = ["--seed", "7"]
  assert "no_errors" {
    condition     = error_rate == 0
    error_message = "the simulator must answer every request"
  }
}

scenario "batch" {
  server_args = ["--seed", "8"]
  load {
    # CI runners are busy: judge the client loosely
    self_check {
      schedule_lag_p99 = "2s"
      achieved_rate    = 0.5
      in_flight        = 0.25
    }
    concurrency = 8
  }
  assert "no_errors" {
    condition     = error_rate == 0
    error_message = "the simulator must answer every request"
  }
}
