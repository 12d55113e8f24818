# A memory sweep with a point outside (0, 1].
server "vllm" {
  image = "vllm/vllm-openai:v0.11.0"
  model = "meta-llama/Llama-3.1-8B-Instruct"
}

scenario "memory" {
  sweep { gpu_memory_utilization = [0.8, 0.9, 1.2] }
  server_args = ["--gpu-memory-utilization", sweep.gpu_memory_utilization]
  load {
    concurrency = 16
    requests    = 100
  }
}
