# A load with neither requests nor duration never stops.
scenario "chat" {
  load {
    concurrency = 4
  }
}
