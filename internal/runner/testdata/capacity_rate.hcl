# A rate search on the tiny simulator capped at 4 sequences and slowed down
# twice (steps of about 3.3 ms, so half the CPU of the plain profile): each
# request holds a slot for about 210 ms (64 output tokens), so the server
# completes at most about 4 / 0.21 s = 19 requests a second. Arrivals are
# nearly evenly spaced (burstiness 50): below that rate nothing queues and
# TTFT stays a few ms; above it the queue grows through the probe, by 10%
# of the probe's length (about 3 s at 60 requests) at 10% past the service
# rate, so TTFT p95 passes the SLO of 200 ms.
suite "runner-capacity-rate" {}

simulator "sim" {
  profile = "tiny"
  args    = ["--max-num-seqs", 4, "--slowdown", 2]
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
    input_tokens  = 32
    output_tokens = 64
  }
}

scenario "search" {
  load {
    burstiness = 50
    requests   = 60
  }
  capacity {
    vary = "rate"
    min  = 12
    max  = 48
    step = 1
    slo  = ttft.p95 < 200
  }
}
