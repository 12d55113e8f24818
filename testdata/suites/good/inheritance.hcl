# Defaults are inherited attribute by attribute; a scenario overrides only
# what it sets. Variables, env() and file() feed values.
suite "inheritance" {
  description = format("inherits from %s", "defaults")
}

variable "model" { default = "meta-llama/Llama-3.1-8B-Instruct" }
variable "requests" { default = 100 }

simulator "sim" {
  profile = "tiny"
  model   = var.model
}

endpoint "staging" {
  url     = "http://127.0.0.1:8000"
  model   = upper(var.model)
  api_key = env("STAGING_KEY")
}

defaults {
  target = simulator.sim
  load {
    concurrency = 4
    requests    = var.requests
    warmup      = 5
    seed        = 42
  }
  workload {
    input_tokens  = 256
    output_tokens = 64
  }
  goodput { ttft = 500 }
}

scenario "inherits_everything" {}

scenario "overrides_some" {
  target = endpoint.staging
  load { concurrency = 16 }
  workload { output_tokens = 512 }
  goodput { tpot = 50 }
}

scenario "structured" {
  workload {
    kind   = "structured"
    schema = jsondecode(file("schema.json"))
    chat   = true
  }
  assert "valid" {
    condition     = structured.valid_rate >= 0.99
    error_message = "answers must follow the schema"
  }
}

scenario "grid" {
  sweep {
    concurrency = [1, 4]
    max_tokens  = [32, 64, 128]
  }
  server_args = ["--max-num-seqs", sweep.concurrency * 2]
  load { concurrency = sweep.concurrency }
  workload { output_tokens = sweep.max_tokens }
  assert "latency" {
    condition = e2el.p99 < 1000 * sweep.concurrency && error_rate == 0
  }
}

gate {
  alpha = 0.01
  tolerance "ttft.p95" { max_regression = "10%" }
  tolerance "e2el.p99" { max_regression = "+0.5s" }
  tolerance "error_rate" { max_regression = "+0.01" }
}
