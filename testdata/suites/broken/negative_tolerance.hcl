# A negative band would fail an unchanged result.
scenario "chat" {
  load {
    concurrency = 4
    requests    = 50
  }
}

gate {
  tolerance "ttft.p95" { max_regression = "-5%" }
}
