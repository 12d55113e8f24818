# A server on device 1 of a node whose DCGM exporter reports two GPUs (the
# runner test serves the exporter and starts a simulator for the server):
# the figures must be device 1's alone.
suite "runner-dcgm-server" {}

variable "dcgm" {}

server "vllm" {
  image         = "vllm/vllm-openai:v0.11.0"
  model         = "m"
  gpus          = "device=1"
  dcgm_exporter = var.dcgm
}

scenario "chat" {
  target = server.vllm
  workload {
    kind          = "random"
    input_tokens  = 32
    output_tokens = 64
  }
  load {
    # tests run on a busy two-core machine under -race: judge the client loosely
    self_check {
      schedule_lag_p99 = "2s"
      achieved_rate    = 0.5
      in_flight        = 0.25
    }
    warmup      = 2
    concurrency = 2
    requests    = 40
  }
  assert "one quiet GPU" {
    condition = gpu.util.max == 31 && gpu.memory_used.max == 1024 && gpu.power.max == 88
  }
}
