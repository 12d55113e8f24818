suite "cli-invalid" {}

scenario "typo" {
  load {
    concurrency = 2
    requests    = 4
  }
  assert "misspelled" {
    condition = ttft.p59 < 100
  }
}
