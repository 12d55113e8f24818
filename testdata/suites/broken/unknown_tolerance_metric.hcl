# A tolerance on a metric that does not exist.
scenario "chat" {
  load {
    concurrency = 4
    requests    = 50
  }
}

gate {
  tolerance "throughput.output_token" { max_regression = "5%" }
}
