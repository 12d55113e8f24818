# Durations are strings with a unit.
scenario "soak" {
  load {
    rate     = 5
    duration = "3 minutes"
  }
}
