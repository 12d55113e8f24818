# Speculative decoding whose drafts the target accepts at var.rate: the
# baseline at 0.8, the current at 0.3 (TestSpecDecodeFellOnSimulator).
suite "spec" {}

variable "rate" {
  default = 0.8
}

simulator "spec" {
  profile = "tiny"
  args    = ["--slowdown", 10, "--speculative-config", "{\"method\": \"ngram\", \"num_speculative_tokens\": 3}", "--spec-acceptance-rate", var.rate]
}

scenario "chat" {
  target = simulator.spec
  workload {
    kind          = "random"
    input_tokens  = 32
    output_tokens = 64
  }
  load {
    concurrency = 2
    requests    = 8
  }
}
