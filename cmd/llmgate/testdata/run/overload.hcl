# An open loop the load generator cannot hold: 5000 requests per second with
# at most one in flight. The run is invalid, so its failing assert is not
# judged.
suite "cli-overload" {}

simulator "sim" {
  profile = "tiny"
}

scenario "overload" {
  target = simulator.sim
  workload {
    kind          = "random"
    input_tokens  = 16
    output_tokens = 4
  }
  load {
    rate        = 5000
    concurrency = 1
    requests    = 20
  }
  assert "impossible" {
    condition = ttft.p95 < 0
  }
}
