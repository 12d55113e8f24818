# A conversation run on the simulator with a think time, per-turn metrics
# in an assert, and input-length buckets: internal/runner/slices_test.go.
scenario "chat" {
  load {
    concurrency = 2
    requests    = 12
  }
  workload {
    kind           = "conversation"
    turns          = 3
    think_time     = "50ms"
    input_tokens   = 32
    output_tokens  = 4
    length_buckets = [64]
  }
  assert "later turns measured" {
    condition = later_turns.e2el.max > 0 && first_turn.ttft.p95 > 0
  }
}
