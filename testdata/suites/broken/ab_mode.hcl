# The gate block's ab setting is one of three modes.
gate {
  ab = "alternating"
}

scenario "chat" {
  load {
    concurrency = 2
    requests    = 10
  }
}
