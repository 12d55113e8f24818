# A prompt needs at least one token.
scenario "chat" {
  workload {
    kind          = "random"
    input_tokens  = 0
    output_tokens = 128
  }
  load {
    concurrency = 4
    requests    = 50
  }
}
