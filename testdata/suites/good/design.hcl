# Every block of the suite format (docs/suite.md) in one suite.
suite "llama-8b-gate" {
  description = "PR gate for Llama-3.1-8B on one H100"
}

variable "image" { default = "vllm/vllm-openai:v0.11.0" }

server "vllm" {
  image           = var.image
  model           = "meta-llama/Llama-3.1-8B-Instruct"
  args            = ["--max-num-seqs", "256"]
  env             = { HF_TOKEN = env("HF_TOKEN") }
  gpus            = "all"
  startup_timeout = "20m"
}
endpoint "staging" {
  url     = "http://vllm.staging:8000"
  model   = "meta-llama/Llama-3.1-8B-Instruct"
  api_key = env("VLLM_API_KEY")
}
simulator "sim" {
  profile = "llama-3.1-8b-h100"
}

defaults {
  target = server.vllm
  load { warmup = 20 }
  goodput {
    ttft = 500
    tpot = 100
  }
}

scenario "chat_interactive" {
  description = "short prompt, long streamed answer"
  workload {
    kind          = "random"
    input_tokens  = 64
    output_tokens = 2048
    range_ratio   = 0.1
  }
  load {
    concurrency = 8
    requests    = 200
  }
  assert "ttft_interactive" {
    condition     = ttft.p95 < 500
    error_message = "P95 TTFT must stay under 500 ms for chat"
  }
}

scenario "bursty_traffic" {
  workload {
    kind          = "random"
    input_tokens  = 512
    output_tokens = 256
  }
  load {
    rate       = 20
    burstiness = 0.5
    duration   = "3m"
  }
}

scenario "concurrency_sweep" {
  sweep { concurrency = [1, 8, 16, 32, 64] }
  load {
    concurrency = sweep.concurrency
    requests    = 500
  }
  assert "knee" {
    condition     = ttft.p95 < 500 || sweep.concurrency > 16
    error_message = "up to 16 users, P95 TTFT stays under 500 ms"
  }
}

scenario "memory_sweep" {
  sweep { gpu_memory_utilization = [0.7, 0.8, 0.85, 0.9, 0.92] }
  server_args = ["--gpu-memory-utilization", sweep.gpu_memory_utilization]
  workload {
    kind          = "random"
    input_tokens  = 1024
    output_tokens = 256
  }
  load {
    concurrency = 64
    requests    = 300
  }
}

gate {
  baseline = "perf/baseline.json"
  alpha    = 0.05
  tolerance "ttft.p95" { max_regression = "10%" }
  tolerance "throughput.output_tokens" { max_regression = "5%" }
  tolerance "e2el.p99" { max_regression = "+200ms" }
}
