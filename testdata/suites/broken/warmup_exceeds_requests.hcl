# More warmup than measured requests.
scenario "chat" {
  load {
    concurrency = 4
    requests    = 50
    warmup      = 100
  }
}
