# Quantile input-length buckets on the simulator, with an assert on the
# longest quarter: internal/runner/slices_test.go.
scenario "mixed" {
  load {
    concurrency = 4
    requests    = 40
    warmup      = 2
  }
  workload {
    input_tokens     = 200
    output_tokens    = 4
    range_ratio      = 0.9
    length_quantiles = 4
  }
  assert "longest quarter measured" {
    condition = length_bucket.q4.ttft.p95 > 0
  }
}
