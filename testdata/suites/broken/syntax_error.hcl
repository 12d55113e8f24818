# A missing closing brace.
scenario "chat" {
  load {
    concurrency = 4
    requests    = 50
}
