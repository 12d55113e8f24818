# Burstiness is a gamma shape: zero is impossible.
scenario "bursty" {
  load {
    rate       = 10
    burstiness = 0
    duration   = "1m"
  }
}
