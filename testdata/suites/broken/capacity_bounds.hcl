# max below min, a fractional number of users and a zero step.
scenario "max_users" {
  load { requests = 200 }
  capacity {
    vary = "concurrency"
    min  = 64
    max  = 8.5
    step = 0
    slo  = ttft.p95 < 500
  }
}
