# bursty — does latency hold when requests arrive in bursts, not evenly?
#
# Real traffic is not a metronome. With the same average rate, burstier
# arrivals (a lower gamma shape) queue more requests at once, so TTFT's tail
# grows long before throughput changes. This suite sends the same mean rate
# at three levels of burstiness, then ramps the rate up to find where the
# server stops keeping up.
#
# How to read the result: compare ttft.p99 across the burstiness runs: a
# server with headroom shows a small spread; one near saturation shows the
# tail exploding at burstiness=0.25. In the ramp run, client.achieved_rate
# below the planned rate means the load generator itself fell behind and the
# run is marked invalid rather than blamed on the server.

suite "bursty" {
  description = "Same mean rate, different burstiness, and a rate ramp"
}

variable "image" { default = "vllm/vllm-openai:v0.11.0" }
variable "model" { default = "meta-llama/Llama-3.1-8B-Instruct" }

# No GPU at hand? --var simulate=true runs every scenario on the embedded
# simulator's model of this deployment (no Docker either), and --var
# scale=0.1 sends a tenth of the requests for a quick look.
variable "simulate" { default = false }
variable "scale" { default = 1 }

server "vllm" {
  image           = var.image
  model           = var.model
  env             = { HF_TOKEN = env("HF_TOKEN") }
  gpus            = "all"
  ipc             = "host"
  startup_timeout = "20m"
}

simulator "sim" {
  profile = "llama-3.1-8b-h100"
  model   = var.model
}

defaults {
  target = var.simulate ? simulator.sim : server.vllm
  workload {
    kind          = "random"
    input_tokens  = 512
    output_tokens = 256
    range_ratio   = 0.25
  }
  load {
    warmup = ceil(20 * var.scale)
    seed   = 11
  }
  goodput {
    ttft = 500
    tpot = 50
  }
}

scenario "burstiness" {
  sweep { burstiness = [1, 0.5, 0.25] } # 1 is Poisson
  load {
    rate       = 12
    burstiness = sweep.burstiness
    duration   = "${ceil(180 * var.scale)}s"
  }
  assert "tail" {
    condition     = ttft.p99 < 2000
    error_message = "even bursty arrivals at 12 req/s must see the first token within 2 s (p99)"
  }
  assert "goodput" {
    condition     = goodput.ratio >= 0.9 || sweep.burstiness < 0.5
    error_message = "with Poisson-or-smoother arrivals, 90% of requests must meet the goodput limits"
  }
}

scenario "ramp" {
  description = "rate rises linearly from 2 to 40 req/s over 3 minutes, then holds"
  load {
    rate        = 40
    concurrency = 512 # a cap on requests in flight, so a stalled server can't pile up unbounded work
    duration    = "${ceil(240 * var.scale)}s"
    ramp {
      kind = "linear"
      from = 2
      over = "${ceil(180 * var.scale)}s"
    }
  }
}

gate {
  tolerance "ttft.p99" { max_regression = "15%" }
  tolerance "goodput.requests" { max_regression = "5%" }
}
