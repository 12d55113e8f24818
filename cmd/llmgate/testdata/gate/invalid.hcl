suite "cli-gate-invalid" {}

scenario "chat" {
  load {
    concurrency = 2
    requests    = 4
  }
  assert "typo" {
    condition = ttft.p96 < 100
  }
}
