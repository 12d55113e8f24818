scenario "s" {
  target = endpoint.e
  load {
    rate     = 5
    duration = "1m"
    ramp_up  = "10s"
  }
  workload {
    kind          = "random"
    input_tokens  = 8
    output_tokens = 8
  }
}

endpoint "e" {
  url = "http://127.0.0.1:8000"
}
