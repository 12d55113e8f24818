# The load refers to a sweep key the scenario does not define.
scenario "sweep" {
  sweep { concurrency = [1, 8] }
  load {
    concurrency = sweep.concurency
    requests    = 100
  }
}
