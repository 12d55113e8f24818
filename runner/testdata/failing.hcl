# The tiny simulator answering every request with an error.
suite "runner-failing" {}

simulator "broken" {
  profile = "tiny"
  args    = ["--fail-rate", "1"]
}

scenario "all_fail" {
  target = simulator.broken
  workload {
    kind          = "random"
    input_tokens  = 16
    output_tokens = 4
  }
  load {
    concurrency = 2
    requests    = 4
  }
  assert "latency" {
    condition = ttft.p95 < 1000
  }
}
