# Two short chat runs and one of token-id completions on one server: what
# a server lacks is probed once, not per run.
suite "two-chats" {}

simulator "sim" {
  profile = "tiny"
}

defaults {
  target = simulator.sim
  workload {
    kind          = "random"
    input_tokens  = 32
    output_tokens = 4
    chat          = true
  }
  load {
    concurrency = 2
    requests    = 6
  }
}

scenario "a" {}
scenario "b" {}
scenario "c" {
  workload {
    kind          = "random"
    input_tokens  = 32
    output_tokens = 4
  }
}
