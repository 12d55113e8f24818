# A capacity search chooses its own loads: it cannot be swept too.
scenario "max_users" {
  sweep { input_tokens = [128, 1024] }
  workload {
    kind          = "random"
    input_tokens  = sweep.input_tokens
    output_tokens = 128
  }
  load { requests = 200 }
  capacity {
    vary = "concurrency"
    min  = 1
    max  = 256
    slo  = ttft.p95 < 500
  }
}
