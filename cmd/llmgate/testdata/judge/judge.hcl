# The suite of the one-judge test (onejudge_test.go): the synthetic files of
# compare/comparetest are of suite "fixture" with one run, "chat". Nothing
# runs: gate --results judges the files, compare and report take its bands.
suite "fixture" {}

simulator "sim" {
  profile = "tiny"
}

defaults {
  target = simulator.sim
}

scenario "chat" {
  workload {
    kind          = "random"
    input_tokens  = 32
    output_tokens = 16
  }
  load {
    concurrency = 4
    requests    = 300
  }
}

# One band: compare and report without --suite would judge four metrics on
# default bands.
gate {
  tolerance "ttft.p95" { max_regression = "10%" }
}
