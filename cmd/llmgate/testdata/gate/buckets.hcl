# A suite for `llmgate gate`'s input-length bucket test, sent with --target
# to an in-process simulator: prompts from 20 to 380 tokens in a short and a
# long bucket, an assert on the long bucket, and a tolerance on its E2EL
# wide enough that only a planted slowdown (3x) is a regression on a
# loaded test machine.
suite "cli-buckets" {
  description = "gate tests on input-length buckets"
}

simulator "sim" {
  profile = "tiny"
}

scenario "mixed" {
  target = simulator.sim
  workload {
    kind                = "random"
    input_tokens        = 200
    output_tokens       = 48
    range_ratio         = 0.9
    length_buckets      = [200]
    length_bucket_names = ["short", "long"]
  }
  load {
    # tests run on a busy two-core machine under -race: judge the client loosely
    self_check {
      schedule_lag_p99 = "2s"
      achieved_rate    = 0.5
      in_flight        = 0.25
    }
    concurrency = 4
    requests    = 40
  }
  assert "long_prompts_answered" {
    condition     = length_bucket.long.e2el.p95 < 60000 && length_bucket.short.e2el.p95 < 60000
    error_message = "both buckets must be answered within a minute"
  }
}

gate {
  tolerance "length_bucket.long.e2el.p95" { max_regression = "50%" }
}
