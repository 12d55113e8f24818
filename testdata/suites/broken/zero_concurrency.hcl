# A closed loop of zero users sends nothing.
scenario "chat" {
  load {
    concurrency = 0
    requests    = 100
  }
}
