# One scenario on the tiny simulator and one on an endpoint nobody listens
# on: the second group cannot start.
suite "runner-unreachable" {}

simulator "sim" {
  profile = "tiny"
}

endpoint "down" {
  url   = "http://127.0.0.1:1"
  model = "tiny"
}

defaults {
  workload {
    kind          = "random"
    input_tokens  = 16
    output_tokens = 4
  }
  load {
    concurrency = 2
    requests    = 4
  }
}

scenario "up" {
  target = simulator.sim
}

scenario "down" {
  target = endpoint.down
}
