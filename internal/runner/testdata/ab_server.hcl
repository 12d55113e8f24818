# A/B with a server container, started in tests by a Starter that serves
# the tiny simulator instead (no Docker, no GPU): the gate's ab mode and
# each side's GPUs come from variables.
suite "runner-ab-server" {}

variable "mode" {
  default = "alternate"
}

variable "gpus" {
  default = "device=0"
}

variable "slowdown" {
  default = 1
}

server "vllm" {
  image = "vllm/vllm-openai:test"
  model = "llmgate/tiny-sim"
  gpus  = var.gpus
  args  = ["--slowdown", var.slowdown]
}

scenario "chat" {
  target = server.vllm
  workload {
    kind          = "random"
    input_tokens  = 32
    output_tokens = 16
  }
  load {
    concurrency = 2
    requests    = 40
  }
}

scenario "second" {
  target = server.vllm
  workload {
    kind          = "random"
    input_tokens  = 32
    output_tokens = 16
  }
  load {
    concurrency = 2
    requests    = 40
  }
}

gate {
  ab = var.mode
}
