# mixed-traffic — chat and RAG at once, at a load that steps up
#
# A server rarely serves one kind of request. Here three chat requests (short
# prompts, long answers) go out for every RAG request (a long shared
# document, a short answer), drawn per request from the seed so that a
# baseline and its candidate send the same mix, and the load steps from
# 4 to 12 requests a second within one run.
#
# How to read the result: mix.chat.* and mix.rag.* are each member's own
# summary, stage.1.* and stage.2.* each stage's; the run's own metrics cover
# them all. A change that helps RAG's long prefills (chunked prefill, the
# prefix cache) and hurts chat's TTFT shows in mix.chat.ttft.p95 while the
# run's p95 barely moves; stage.2 against stage.1 shows what the step cost.

suite "mixed-traffic" {
  description = "A 3:1 mix of chat and RAG in two load stages"
}

variable "image" { default = "vllm/vllm-openai:v0.11.0" }
variable "model" { default = "meta-llama/Llama-3.1-8B-Instruct" }

# No GPU at hand? --var simulate=true runs every scenario on the embedded
# simulator's model of this deployment (no Docker either), and --var
# scale=0.1 makes each stage a tenth as long for a quick look.
variable "simulate" { default = false }
variable "scale" { default = 1 }

server "vllm" {
  image           = var.image
  model           = var.model
  args            = ["--enable-prefix-caching"]
  env             = { HF_TOKEN = env("HF_TOKEN") }
  gpus            = "all"
  ipc             = "host"
  startup_timeout = "20m"
}

simulator "sim" {
  profile = "llama-3.1-8b-h100"
  model   = var.model
  args    = ["--enable-prefix-caching"]
}

scenario "chat-and-rag" {
  target = var.simulate ? simulator.sim : server.vllm
  mix {
    workload "chat" {
      weight        = 3
      kind          = "random"
      input_tokens  = 256
      output_tokens = 256
      range_ratio   = 0.25
    }
    workload "rag" {
      weight        = 1
      kind          = "prefix"
      prefix_tokens = 2048 # the shared document
      prefix_groups = 4
      input_tokens  = 2304
      output_tokens = 64
    }
  }
  load {
    warmup = ceil(10 * var.scale)
    seed   = 21
    stage {
      rate     = 4
      duration = "${ceil(60 * var.scale)}s"
    }
    stage {
      rate     = 12
      duration = "${ceil(60 * var.scale)}s"
    }
  }
  assert "chat" {
    condition     = mix.chat.ttft.p95 < 1000
    error_message = "chat's first token must come within 1 s (p95) while RAG shares the server"
  }
  assert "step" {
    condition     = stage.2.ttft.p95 < 3 * stage.1.ttft.p95 + 100
    error_message = "tripling the rate must not more than triple the p95 TTFT"
  }
}

gate {
  tolerance "mix.chat.ttft.p95" { max_regression = "10%" }
  tolerance "mix.rag.e2el.p95" { max_regression = "10%" }
  tolerance "stage.2.ttft.p99" { max_regression = "15%" }
}
