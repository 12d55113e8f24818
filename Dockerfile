# The llmgate simulator as a container that starts like vllm/vllm-openai:
#   docker run -p 8000:8000 IMAGE meta-llama/Llama-3.1-8B-Instruct --max-num-seqs 8
# The entrypoint is `llmgate sim`, which takes `vllm serve`'s arguments.
# Build the static binary first (no image is pulled):
#   make build && docker build -t llmgate-sim .
FROM scratch
COPY bin/llmgate /llmgate
EXPOSE 8000
ENTRYPOINT ["/llmgate", "sim"]
