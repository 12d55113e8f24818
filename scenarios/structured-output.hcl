# structured-output — what does guided decoding cost, and are answers valid?
#
# Structured output (response_format with a JSON schema) constrains every
# decoding step to tokens the schema allows. It costs time per token, and a
# bug or backend change can produce answers that do not parse. This suite
# sends the same chat load twice: free-form, and constrained to the schema
# below, and checks every structured answer against the schema.
#
# How to read the result: structured.valid_rate must be 1 (or very near);
# anything less is a correctness bug, not a performance one. The TPOT
# difference between the two scenarios is the price of guided decoding;
# gate it so a backend upgrade can't quietly double it.

suite "structured-output" {
  description = "JSON-schema guided decoding vs free-form, with answer validation"
}

variable "image" { default = "vllm/vllm-openai:v0.11.0" }
variable "model" { default = "meta-llama/Llama-3.1-8B-Instruct" }

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
  load {
    concurrency = 32
    requests    = max(ceil(300 * var.scale), var.requests_per_user * 32)
    warmup      = ceil(16 * var.scale)
  }
}

scenario "free_form" {
  description = "the same lengths without a schema: the baseline cost"
  workload {
    kind          = "random"
    chat          = true
    input_tokens  = 512
    output_tokens = 200
  }
}

scenario "json_schema" {
  description = "answers constrained to a ticket-triage schema"
  workload {
    kind          = "structured"
    chat          = true
    input_tokens  = 512 # the schema and instructions alone take ~340 of these tokens
    output_tokens = 200
    # A JSON schema written as an HCL object; jsonencode("...") or
    # file("schema.json") work too.
    schema = {
      type = "object"
      properties = {
        category = { type = "string", enum = ["bug", "feature", "question", "billing"] }
        priority = { type = "integer", minimum = 1, maximum = 4 }
        summary  = { type = "string", maxLength = 200 }
        labels   = { type = "array", items = { type = "string" }, maxItems = 5 }
      }
      required             = ["category", "priority", "summary"]
      additionalProperties = false
    }
  }
  assert "valid" {
    condition     = structured.valid_rate >= 0.999
    error_message = "structured answers must parse and validate against the schema"
  }
  assert "overhead" {
    condition     = tpot.p50 < 30
    error_message = "guided decoding should keep median TPOT under 30 ms"
  }
}

gate {
  tolerance "tpot.p50" { max_regression = "10%" }
  tolerance "structured.valid_rate" { max_regression = "+0.001" }
}
