# An open loop needs a positive arrival rate.
scenario "bursty" {
  load {
    rate     = -5
    duration = "1m"
  }
}
