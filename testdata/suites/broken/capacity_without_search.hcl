# capacity.concurrency is only measured by a scenario with a capacity block.
scenario "chat" {
  load {
    concurrency = 8
    requests    = 200
  }
  assert "enough" {
    condition = capacity.concurrency >= 64
  }
}
