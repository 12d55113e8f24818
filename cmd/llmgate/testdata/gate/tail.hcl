# A suite for the end-to-end tail-only regression test: it sends a closed
# loop to a test server (--target) whose time to first token is known, and
# gates ttft.p95 with a 50% band. Only the tail moves in the regressed
# server, so a test of the whole distribution would hardly see it.
suite "cli-tail" {
  description = "tail-only regression"
}

endpoint "server" {
  url = "http://127.0.0.1:1"
}

defaults {
  target = endpoint.server
}

scenario "chat" {
  workload {
    kind          = "random"
    input_tokens  = 16
    output_tokens = 8
  }
  load {
    # tests run on a busy two-core machine under -race: judge the client loosely
    self_check {
      schedule_lag_p99 = "2s"
      achieved_rate    = 0.5
      in_flight        = 0.25
    }
    concurrency = 4
    requests    = 120
  }
}

gate {
  tolerance "ttft.p95" { max_regression = "50%" }
  tolerance "ttft.median" { max_regression = "50%" }
}
