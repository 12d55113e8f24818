# A reference to a variable that is not declared.
variable "image" { default = "vllm/vllm-openai:v0.11.0" }

server "vllm" {
  image = var.imag
  model = "meta-llama/Llama-3.1-8B-Instruct"
}

scenario "chat" {
  load {
    concurrency = 4
    requests    = 50
  }
}
