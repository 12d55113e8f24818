# A misspelled block type at the top level.
scenaro "chat" {
  load {
    concurrency = 8
    requests    = 100
  }
}
