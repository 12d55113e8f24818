# The llmgate simulator as a container that starts like vllm/vllm-openai:
#   docker run -p 8000:8000 IMAGE meta-llama/Llama-3.1-8B-Instruct --max-num-seqs 8
# The entrypoint is `llmgate sim`, which takes `vllm serve`'s arguments.
# Build the static binaries first (no image is pulled):
#   make sim-image    (make build-sim, then docker build -t llmgate-sim .)
# bin/nvidia-smi (internal/cmd/nvidia-smi) is a stand-in that reports two
# GPUs with fixed readings, so that GPU sampling can be tested without a GPU.
FROM scratch
COPY bin/llmgate /llmgate
COPY bin/nvidia-smi /usr/bin/nvidia-smi
EXPOSE 8000
ENTRYPOINT ["/llmgate", "sim"]
