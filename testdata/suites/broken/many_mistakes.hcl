# Several mistakes in one file: all of them are reported in one pass.
scenario "chat" {
  workload {
    kind          = "randon"
    output_tokens = -1
  }
  load {
    concurrency = 0
    rate        = 0
    requests    = 10
    warmup      = 20
  }
  assert "fast" {
    condition = tfft.p95 < 500
  }
}
