# A capacity search whose answer is structural: with --max-num-seqs S, a
# closed loop of up to S users never queues (TTFT is one engine step, about
# 13 ms at --slowdown 8), while more users than S wait for a slot: the users
# left over wait a whole request (48 tokens of ~13 ms steps, about 640 ms),
# so TTFT p95 is about 640 ms once a twentieth of the requests wait. The SLO
# ttft.p95 < 300 ms holds up to S users and fails above, so the search
# answers S: 8 by default, 2 with --var max_seqs=2. The slowdown keeps the
# simulator's CPU low and the margins wide (a busy machine that stalls the
# simulator for less than about 250 ms cannot fail a passing probe), for a
# loaded test machine under -race.
suite "cli-capacity" {}

variable "max_seqs" { default = 8 }

simulator "sim" {
  profile = "tiny"
  args    = ["--max-num-seqs", var.max_seqs, "--slowdown", 8]
}

scenario "max_users" {
  target = simulator.sim
  workload {
    kind          = "random"
    input_tokens  = 32
    output_tokens = 48
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
    min  = 2
    max  = 12
    step = 4
    # the SLO's margins are wide (tens of ms against 640 ms): one probe a load
    repeats = 1
    slo     = ttft.p95 < 300
  }
}

gate {
  tolerance "capacity.concurrency" { max_regression = "10%" }
}
