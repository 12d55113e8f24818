# --gpu-memory-utilization is a fraction of GPU memory: 95 is a percentage by mistake.
server "vllm" {
  image = "vllm/vllm-openai:v0.11.0"
  model = "meta-llama/Llama-3.1-8B-Instruct"
}

scenario "chat" {
  server_args = ["--gpu-memory-utilization", 95]
  load {
    concurrency = 4
    requests    = 50
  }
}
