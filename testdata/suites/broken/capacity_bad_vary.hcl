# A capacity search varies concurrency or rate; "concurency" is misspelled.
scenario "max_users" {
  load { requests = 200 }
  capacity {
    vary = "concurency"
    min  = 1
    max  = 512
    slo  = ttft.p95 < 500
  }
}
