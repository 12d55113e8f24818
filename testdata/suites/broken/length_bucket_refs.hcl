# Asserts and tolerances on input-length buckets the workloads do not declare.
scenario "mixed" {
  load {
    concurrency = 4
    requests    = 80
  }
  workload {
    input_tokens        = 1024
    range_ratio         = 0.9
    length_buckets      = [512]
    length_bucket_names = ["short", "long"]
  }
  assert "long prompts" {
    condition = length_bucket.lnog.ttft.p95 < 900
  }
  assert "short prompts" {
    condition = length_bucket.short.ttft.p96 < 300
  }
  assert "incomplete" {
    condition = length_bucket.long < 300
  }
}

scenario "quartiles" {
  load {
    concurrency = 4
    requests    = 80
  }
  workload {
    range_ratio      = 0.5
    length_quantiles = 4
  }
  assert "fifth quartile" {
    condition = length_bucket.q5.e2el.p95 < 2000
  }
}

scenario "plain" {
  load {
    concurrency = 4
    requests    = 80
  }
  assert "no buckets here" {
    condition = length_bucket.short.ttft.p95 < 300
  }
}

gate {
  tolerance "length_bucket.log.ttft.p95" { max_regression = "10%" }
  tolerance "length_bucket.q4.ttft.p95" { max_regression = "10%" }
  tolerance "length_bucket.short.e2el.p59" { max_regression = "10%" }
}
