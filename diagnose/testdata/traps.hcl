# Each scenario plants one trap of a serving benchmark in the tiny simulator
# (about 2 ms steps, a 4k-token KV cache); "clean" plants none.
suite "traps" {}

simulator "sim" { profile = "tiny" }

simulator "few_seqs" {
  profile = "tiny"
  args    = ["--max-num-seqs", 4]
}

simulator "no_prefix_cache" {
  profile = "tiny"
  args    = ["--no-enable-prefix-caching"]
}

simulator "stall" {
  profile = "tiny"
  args    = ["--stall", "300ms@1s"]
}

simulator "stall_timeouts" {
  profile = "tiny"
  args    = ["--stall", "1s@1s"]
}

defaults {
  target = simulator.sim
  workload {
    kind          = "random"
    input_tokens  = 32
    output_tokens = 32
  }
}

scenario "clean" {
  load {
    concurrency = 2
    requests    = 60
  }
}

# 32 users of 512 tokens each need 16k tokens of a 4k-token cache.
scenario "memory" {
  workload {
    kind          = "random"
    input_tokens  = 256
    output_tokens = 256
  }
  load {
    concurrency = 32
    requests    = 64
  }
}

# A 300 ms freeze in an open loop of 4 s: the requests that arrive during it
# wait it out for their first token.
scenario "tail" {
  target = simulator.stall
  load {
    rate     = 100
    requests = 400
  }
}

# 32 users, 4 sequences at a time: the queue never empties.
scenario "queue" {
  target = simulator.few_seqs
  workload {
    kind          = "random"
    input_tokens  = 32
    output_tokens = 128
  }
  load {
    concurrency = 32
    requests    = 160
  }
}

scenario "prefix_off" {
  target = simulator.no_prefix_cache
  workload {
    kind          = "prefix"
    prefix_tokens = 256
    prefix_groups = 2
    input_tokens  = 288
    output_tokens = 16
  }
  load {
    concurrency = 4
    requests    = 60
  }
}

# A 1 s freeze against a 300 ms timeout in a run of about 8 s: the
# requests sent during the freeze fail together.
scenario "burst" {
  target = simulator.stall_timeouts
  load {
    concurrency = 8
    requests    = 800
    timeout     = "300ms"
  }
}

# Past 4 sequences more users add nothing: throughput is flat. Three points
# give two doublings, so one point slowed by a busy test machine cannot hide it.
scenario "saturated" {
  target = simulator.few_seqs
  sweep { concurrency = [4, 8, 16] }
  load {
    concurrency = sweep.concurrency
    requests    = 64
  }
}
