# The llmgate simulator as a container that starts like vllm/vllm-openai:
#   docker run -p 8000:8000 IMAGE meta-llama/Llama-3.1-8B-Instruct --max-num-seqs 8
# The entrypoint is `llmgate sim`, which takes `vllm serve`'s arguments.
# Build the static binary first (no image is pulled):
#   make build && docker build -t llmgate-sim .
# The same binary run as nvidia-smi is a stand-in that reports two GPUs with
# fixed readings, so that GPU sampling can be tested without a GPU.
FROM scratch
COPY bin/llmgate /llmgate
COPY bin/llmgate /usr/bin/nvidia-smi
EXPOSE 8000
ENTRYPOINT ["/llmgate", "sim"]
