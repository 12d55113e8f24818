# Each scenario plants one trap of a serving benchmark in the tiny simulator
# (about 2 ms steps, a 4k-token KV cache); "clean" plants none.
suite "traps" {}

simulator "sim" { profile = "tiny" }

simulator "few_seqs" {
  profile = "tiny"
  args    = ["--max-num-seqs", 4]
}

# Prefills of 8 tokens a step: a 1000-token prompt takes some 125 steps.
simulator "small_chunks" {
  profile = "tiny"
  args    = ["--max-num-batched-tokens", 8, "--max-num-seqs", 8]
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

# One user with long prompts prefilled in small chunks: TTFT is prefill.
scenario "prefill" {
  target = simulator.small_chunks
  workload {
    kind          = "random"
    input_tokens  = 1000
    output_tokens = 4
  }
  load {
    concurrency = 1
    requests    = 20
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

# A quarter of the structured answers come back cut off half-way, as from a
# broken guided-decoding backend: they no longer parse, so they fail the
# schema; "structured_clean" asks the same of a sound server.
simulator "broken_json" {
  profile = "tiny"
  args    = ["--invalid-structured-rate", 0.25]
}

scenario "invalid_json" {
  target = simulator.broken_json
  workload {
    kind          = "structured"
    input_tokens  = 192 # the instruction and the schema take ~120
    output_tokens = 64
    schema = {
      type       = "object"
      properties = { name = { type = "string" }, age = { type = "integer" } }
      required   = ["name", "age"]
    }
  }
  load {
    concurrency = 4
    requests    = 40
  }
}

# Answers cut off at max_tokens: output_tokens is too small for the JSON the
# schema asks for, so every answer ends with finish_reason "length" before
# it closes.
scenario "cut_json" {
  workload {
    kind          = "structured"
    input_tokens  = 192
    output_tokens = 6
    schema = {
      type       = "object"
      properties = { name = { type = "string" }, age = { type = "integer" } }
      required   = ["name", "age"]
    }
  }
  load {
    concurrency = 4
    requests    = 20
  }
}

scenario "structured_clean" {
  workload {
    kind          = "structured"
    input_tokens  = 192 # the instruction and the schema take ~120
    output_tokens = 64
    schema = {
      type       = "object"
      properties = { name = { type = "string" }, age = { type = "integer" } }
      required   = ["name", "age"]
    }
  }
  load {
    concurrency = 4
    requests    = 40
  }
}

# Every sequence adds 2 ms to a step (--per-seq-overhead; the profile's is
# 10 µs), so a decode step of 4 sequences takes ~9.6 ms and one of 8 ~17.6:
# TPOT grows ~1.8x across the doubling. "batch_clean" is the same sweep on
# the plain tiny profile, whose steps barely grow (~1.7 ms both).
simulator "per_seq" {
  profile = "tiny"
  args    = ["--per-seq-overhead", "2ms"]
}

scenario "batch_growth" {
  target = simulator.per_seq
  sweep { concurrency = [4, 8] }
  load {
    concurrency = sweep.concurrency
    requests    = sweep.concurrency * 4
  }
}

scenario "batch_clean" {
  sweep { concurrency = [4, 8] }
  load {
    concurrency = sweep.concurrency
    requests    = sweep.concurrency * 4
  }
}
