# Two scenarios with one name would produce colliding runs.
scenario "chat" {
  load {
    concurrency = 4
    requests    = 50
  }
}

scenario "chat" {
  load {
    concurrency = 8
    requests    = 50
  }
}
