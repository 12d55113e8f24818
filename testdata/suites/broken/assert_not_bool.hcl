# An assert condition must be true or false, not a number.
scenario "chat" {
  load {
    concurrency = 4
    requests    = 50
  }
  assert "fast" {
    condition = ttft.p95 + 500
  }
}
