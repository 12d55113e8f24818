# Two runs against a server that does not serve the lengths asked for (see
# lengthServer in lengths_test.go): one whose answers it cuts short whatever
# ignore_eos says, one whose prompts it truncates to its 4096-token context.
# Both are invalid, each for its own reason.
suite "cli-lengths" {}

scenario "short_answers" {
  workload {
    kind          = "random"
    input_tokens  = 16
    output_tokens = 64
  }
  load {
    concurrency = 2
    requests    = 8
  }
}

scenario "long_prompts" {
  workload {
    kind          = "random"
    input_tokens  = 6000
    output_tokens = 2
  }
  load {
    concurrency = 2
    requests    = 8
  }
}
