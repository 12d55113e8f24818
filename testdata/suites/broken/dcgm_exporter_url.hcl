# dcgm_exporter is the exporter's metrics page: a host and port alone has no
# page, and a bare host:port is not a URL.
server "vllm" {
  image         = "vllm/vllm-openai:v0.11.0"
  model         = "meta-llama/Llama-3.1-8B-Instruct"
  gpus          = "all"
  dcgm_exporter = "http://gpu-node:9400"
}

endpoint "staging" {
  url           = "http://vllm.staging:8000"
  dcgm_exporter = "gpu-node:9400/metrics"
}

scenario "chat" {
  target = server.vllm
  load {
    concurrency = 4
    requests    = 50
  }
}
