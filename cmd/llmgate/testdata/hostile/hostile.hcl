# The suite the hostile-server tests run: an endpoint whose API key comes
# from the environment (a secret llmgate must mask), a few requests with a
# short per-request timeout so a stalling server costs seconds.
suite "hostile" {
  description = "ci=${var.ci}, hub ${var.hub}"
}

variable "url" {
  default = "http://127.0.0.1:1"
}

# "" takes the model the server lists (the inject-model probe)
variable "model" {
  default = "hostile-model"
}

# configuration: printed as it is ("true" on every runner)
variable "ci" {
  default = env("CI")
}

# a secret whose variable's name does not say so
variable "hub" {
  default   = env("LLMGATE_HOSTILE_HUB")
  sensitive = true
}

endpoint "srv" {
  url     = var.url
  model   = var.model
  api_key = env("LLMGATE_HOSTILE_API_KEY")
}

scenario "chat" {
  target = endpoint.srv
  workload {
    kind          = "random"
    input_tokens  = 4
    output_tokens = 8
  }
  load {
    # tests run on a busy two-core machine under -race: judge the client loosely
    self_check {
      schedule_lag_p99 = "2s"
      achieved_rate    = 0.5
      in_flight        = 0.25
    }
    concurrency = 2
    requests    = 4
    timeout     = "2s"
  }
  # a header whose name says secret (its variable's does not): the
  # echo-auth mode sends every request header back
  request {
    extra_body = { temperature = 0 }
    headers    = { "X-Upstream-Token" = env("LLMGATE_HOSTILE_UPSTREAM"), "X-Tenant" = "team-a" }
  }
}
