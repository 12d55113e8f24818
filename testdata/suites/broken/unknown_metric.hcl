# A misspelled metric in an assert must not pass silently.
scenario "chat" {
  load {
    concurrency = 4
    requests    = 50
  }
  assert "fast" {
    condition     = ttft.p96 < 500
    error_message = "P95 TTFT under 500 ms"
  }
}
