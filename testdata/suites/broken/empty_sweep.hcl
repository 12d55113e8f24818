# A sweep with no values expands to no runs at all.
scenario "sweep" {
  sweep { concurrency = [] }
  load {
    concurrency = 4
    requests    = 100
  }
}
