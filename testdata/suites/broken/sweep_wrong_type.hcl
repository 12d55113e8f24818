# Concurrency values must be numbers.
scenario "sweep" {
  sweep { concurrency = [1, "eight", 16] }
  load {
    concurrency = sweep.concurrency
    requests    = 100
  }
}
