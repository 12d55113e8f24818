# The scenario names a server that is not declared.
server "vllm" {
  image = "vllm/vllm-openai:v0.11.0"
  model = "meta-llama/Llama-3.1-8B-Instruct"
}

scenario "chat" {
  target = server.vlm
  load {
    concurrency = 4
    requests    = 50
  }
}
