# A concurrency sweep of random 512-token prompts on one simulator: every
# point after the first would be measured on prefix-cache hits if prompts
# repeated across runs.
suite "sweep-512" {
  description = "random 512-token prompts at concurrency 1, 4 and 16 on one server"
}

simulator "sim" {
  profile = "llama-3.1-8b-h100"
  # the test counts prefix-cache hits, not time: a tenth of the wall time
  args = ["--time-scale", 0.1]
}

scenario "sweep" {
  target = simulator.sim
  workload {
    kind          = "random"
    input_tokens  = 512
    output_tokens = 8
  }
  sweep {
    concurrency = [1, 4, 16]
  }
  load {
    concurrency = sweep.concurrency
    requests    = 32
    warmup      = 4
  }
}
