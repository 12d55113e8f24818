# quickstart — does llmgate work here, and what does a result look like?
#
# Runs two short scenarios against the embedded vLLM simulator: no GPU, no
# Docker, about 19 s (`make run`; 15 s of it are the measured requests). One is a chat-style
# closed loop (16 users, each sends the next request when the last answer has
# finished streaming); the other an open loop at a fixed arrival rate.
#
# How to read the result: each run prints TTFT (time to first token: what a
# user waits before text appears), TPOT (time per output token after the
# first: how fast text streams), E2EL (the whole answer) and throughput. The
# asserts below are the SLOs; a failed assert exits 1 and names the value
# that broke it. The numbers come from the simulator's model of Llama 3.1 8B
# on one H100, so they are plausible but not a measurement of your hardware:
# point a suite at a `server` or `endpoint` for that.

suite "quickstart" {
  description = "Two short scenarios against the embedded simulator"
}

# Variables can be set from outside: --var scale=0.25 (or the environment
# variable LLMGATE_VAR_scale=0.25) sends a quarter of the requests, for a
# smoke run of about 7 s that still meets its asserts.
variable "scale" { default = 1 }

# --var profile=NAME picks another modelled GPU (`llmgate sim --help` lists them).
variable "profile" { default = "llama-3.1-8b-h100" }

# --var slowdown=1.3 makes every simulated engine step 30% slower: a planted
# regression to watch `llmgate compare` or `llmgate gate` catch.
variable "slowdown" { default = 1 }

simulator "sim" {
  profile = var.profile # "llama-3.1-8b-h100" models Llama 3.1 8B on one H100
  args    = ["--slowdown", var.slowdown]
}

defaults {
  target = simulator.sim
  load {
    warmup = 8  # the first requests fill caches; they are not measured
    seed   = 1  # same prompts and arrivals every run
  }
  goodput {
    ttft = 200 # ms; a request is "good" when it meets every limit
    tpot = 30
  }
}

scenario "chat" {
  description = "16 users chatting: short prompts, medium answers"
  workload {
    kind          = "random"
    input_tokens  = 256
    output_tokens = 64
    range_ratio   = 0.2 # lengths vary ±20% around the means
  }
  load {
    concurrency = 16
    requests    = ceil(160 * var.scale)
  }
  assert "ttft" {
    condition     = ttft.p95 < 200
    error_message = "95% of users should see the first token within 200 ms"
  }
  assert "streaming" {
    condition     = tpot.p95 < 30
    error_message = "text should stream at better than 30 ms per token"
  }
  assert "no_errors" {
    condition = error_rate == 0
  }
}

scenario "steady_rate" {
  description = "An open loop of 16 requests per second, Poisson arrivals"
  workload {
    kind          = "random"
    input_tokens  = 512
    output_tokens = 96
  }
  load {
    rate       = 16
    burstiness = 1 # 1 = Poisson; below 1 is burstier
    requests   = ceil(160 * var.scale)
    duration   = "30s" # whichever comes first ends the run
  }
  assert "keeps_up" {
    condition     = goodput.ratio >= 0.9
    error_message = "at 16 req/s at least 90% of requests should meet the goodput limits"
  }
}

gate {
  # Compare with a results file from an earlier run:
  #   llmgate gate scenarios/quickstart.hcl --baseline old-results.json
  tolerance "ttft.p95" { max_regression = "10%" }
  tolerance "tpot.p50" { max_regression = "10%" }
  tolerance "throughput.output_tokens" { max_regression = "5%" }
}
