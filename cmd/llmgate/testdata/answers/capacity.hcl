# A capacity search whose answer is structural: with --max-num-seqs S, a
# closed loop of up to S users never queues (TTFT is one engine step, a few
# ms), while more users than S wait for a slot: the users left over wait a
# whole request (64 tokens of ~6.6 ms steps at --slowdown 4, about 430 ms),
# so TTFT p95 is about 430 ms once a twentieth of the requests wait. The
# SLO ttft.p95 < 200 ms holds up to S users and fails above, so the search
# answers S: 8 by default, 4 with --var max_seqs=4. The slowdown keeps the
# simulator's CPU low, for a loaded test machine under -race.
suite "cli-capacity" {}

variable "max_seqs" { default = 8 }

simulator "sim" {
  profile = "tiny"
  args    = ["--max-num-seqs", var.max_seqs, "--slowdown", 4]
}

scenario "max_users" {
  target = simulator.sim
  workload {
    kind          = "random"
    input_tokens  = 32
    output_tokens = 64
  }
  load {
    # a busy two-core machine under -race: judge the client loosely
    self_check {
      schedule_lag_p99 = "2s"
      achieved_rate    = 0.5
      in_flight        = 0.25
    }
    requests = 24
  }
  capacity {
    vary = "concurrency"
    min  = 4
    max  = 12
    step = 4
    # the SLO's margins are wide (a few ms against 430 ms): one probe a load
    repeats = 1
    slo     = ttft.p95 < 200
  }
}

gate {
  tolerance "capacity.concurrency" { max_regression = "10%" }
}
