# moe — does a Mixtral-class mixture-of-experts model serve well across GPUs?
#
# Mixtral-8x7B has 47B parameters but activates about 13B per token (2 of 8
# experts per layer). It does not fit one 80 GB GPU in BF16, so it runs
# tensor-parallel over two GPUs; --enable-expert-parallel places whole
# experts on GPUs instead of slicing every expert, trading all-reduce traffic
# for all-to-all. Tensor parallelism needs shared memory between workers:
# ipc = "host" and a large shm_size.
#
# How to read the result: the decode-heavy scenario shows the per-token cost
# of expert routing (tpot); the sweep shows how throughput scales with batch
# size, which for MoE keeps growing further than for a dense model because
# more tokens share each expert's weight reads. Compare with a run without
# --enable-expert-parallel by overriding args in a copy of this suite.

suite "moe" {
  description = "Mixtral-8x7B-Instruct on two GPUs with tensor and expert parallelism"
}

variable "image" { default = "vllm/vllm-openai:v0.11.0" }
variable "model" { default = "mistralai/Mixtral-8x7B-Instruct-v0.1" }
variable "tp" {
  description = "GPUs to shard the model over"
  default     = 2
}

# No GPU at hand? --var simulate=true runs every scenario on the embedded
# simulator's model of this deployment (no Docker either), and --var
# scale=0.1 sends a tenth of the requests for a quick look.
variable "simulate" { default = false }
variable "scale" { default = 1 }
# Scaled down, a run still sends at least requests_per_user measured requests
# per user, so that it reaches the concurrency it is named after (at 2 or fewer
# per user it is mostly ramp up and down). 0 lets scale cut below that; such
# runs then say on screen and in the reports that they never reached it.
variable "requests_per_user" { default = 4 }

server "mixtral" {
  image = var.image
  model = var.model
  args = [
    "--tensor-parallel-size", var.tp,
    "--enable-expert-parallel",
    "--max-model-len", 8192,
    "--gpu-memory-utilization", 0.9,
  ]
  env             = { HF_TOKEN = env("HF_TOKEN") }
  gpus            = "all"
  ipc             = "host"
  shm_size        = "16g"
  startup_timeout = "40m" # 90 GB of weights to download and load
}

simulator "sim" {
  profile = "mixtral-8x7b-h100"
  model   = var.model
  args    = [
    "--tensor-parallel-size", var.tp,
    "--enable-expert-parallel",
    "--max-model-len", 8192,
    "--gpu-memory-utilization", 0.9,
  ]
}

defaults {
  target = var.simulate ? simulator.sim : server.mixtral
  workload {
    kind          = "random"
    input_tokens  = 1024
    output_tokens = 512
    range_ratio   = 0.1
  }
  load { warmup = ceil(16 * var.scale) }
  goodput {
    ttft = 1000
    tpot = 60
  }
}

scenario "chat" {
  description = "interactive load: expert routing cost per token"
  load {
    concurrency = 16
    requests    = max(ceil(300 * var.scale), var.requests_per_user * 16)
  }
  assert "tpot" {
    condition     = tpot.p95 < 60
    error_message = "Mixtral should stream at better than 60 ms per token at 16 users"
  }
}

scenario "batch_scaling" {
  sweep { concurrency = [8, 32, 128] }
  load {
    concurrency = sweep.concurrency
    requests    = max(ceil(max(200, sweep.concurrency * 4) * var.scale), var.requests_per_user * sweep.concurrency)
  }
  assert "errors" {
    condition = error_rate == 0
  }
}

gate {
  tolerance "throughput.output_tokens" { max_regression = "5%" }
  tolerance "tpot.p95" { max_regression = "10%" }
}
