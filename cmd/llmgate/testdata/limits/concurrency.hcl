# More users than this process may open connections for: refused before
# anything starts (--var n=... sets it).
variable "n" {
  default = 1000000
}

simulator "sim" {
  profile = "tiny"
}

scenario "crowd" {
  target = simulator.sim
  workload {
    kind          = "random"
    input_tokens  = 8
    output_tokens = 2
  }
  load {
    concurrency = var.n
    requests    = var.n
  }
}
