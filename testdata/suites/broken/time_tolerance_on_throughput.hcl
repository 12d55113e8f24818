# A time band on a throughput metric makes no sense.
scenario "chat" {
  load {
    concurrency = 4
    requests    = 50
  }
}

gate {
  tolerance "throughput.output_tokens" { max_regression = "+200ms" }
}
