# An assert without a condition: it would check nothing and pass forever.
scenario "chat" {
  load {
    concurrency = 8
    requests    = 100
  }
  assert "ttft" {
    error_message = "P95 TTFT must stay under 500 ms"
  }
}
