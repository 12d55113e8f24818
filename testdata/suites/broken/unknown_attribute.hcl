# A misspelled load knob.
scenario "chat" {
  load {
    concurency = 8
    requests   = 100
  }
}
