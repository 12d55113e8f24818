# The capacity search against a brute-force sweep over the same loads, on
# the tiny simulator capped at 24 sequences: P95 TTFT climbs with users
# (about 8 ms at 4, 29 ms at 16, 41 ms at 24, 150 ms past 24), so the
# SLO ttft.p95 < 100 ms breaks past 24 users, where requests queue.
suite "runner-capacity" {}

variable "slo_ms" { default = 100 }
# --time-scale of the simulator: 1 (real time) where TTFT is held to the
# SLO; a test that checks the search's path only may run it faster.
variable "time_scale" { default = 1 }

simulator "sim" {
  profile = "tiny"
  args    = ["--max-num-seqs", 24, "--time-scale", var.time_scale]
}

defaults {
  target = simulator.sim
  load {
    # a busy two-core machine under -race: judge the client loosely
    self_check {
      schedule_lag_p99 = "2s"
      achieved_rate    = 0.5
      in_flight        = 0.25
    }
  }
  workload {
    kind          = "random"
    input_tokens  = 64
    output_tokens = 64
  }
}

scenario "search" {
  load {
    requests = 200
    warmup   = 16
  }
  capacity {
    vary = "concurrency"
    min  = 4
    max  = 48
    step = 4
    slo  = ttft.p95 < var.slo_ms
  }
  assert "enough" {
    condition = capacity.concurrency >= 4
  }
}

scenario "sweep" {
  sweep { concurrency = [4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48] }
  load {
    concurrency = sweep.concurrency
    requests    = 200
    warmup      = 16
  }
  assert "slo" {
    condition = ttft.p95 < var.slo_ms
  }
}
