# The SLO is over metrics: not the search's own answer, not a number, and a
# concurrency search needs a closed loop (no rate).
scenario "max_users" {
  load {
    rate     = 10
    requests = 200
  }
  capacity {
    vary = "concurrency"
    min  = 1
    max  = 256
    slo  = capacity.concurrency > 8 && ttft.p95 < 500
  }
  assert "enough" {
    condition = capacity.rate >= 64
  }
}
