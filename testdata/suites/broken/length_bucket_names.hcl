# Input-length buckets declared wrongly.
scenario "count" {
  load {
    concurrency = 4
    requests    = 80
  }
  workload {
    length_buckets      = [512, 2048]
    length_bucket_names = ["short", "long"]
  }
}

scenario "names" {
  load {
    concurrency = 4
    requests    = 80
  }
  workload {
    length_buckets      = [512]
    length_bucket_names = ["short", "2long"]
  }
}

scenario "duplicate" {
  load {
    concurrency = 4
    requests    = 80
  }
  workload {
    length_quantiles    = 3
    length_bucket_names = ["short", "mid", "short"]
  }
}

scenario "both" {
  load {
    concurrency = 4
    requests    = 80
  }
  workload {
    length_buckets   = [512]
    length_quantiles = 2
  }
}

scenario "one_quantile" {
  load {
    concurrency = 4
    requests    = 80
  }
  workload {
    length_quantiles = 1
  }
}

scenario "conversation" {
  load {
    concurrency = 4
    requests    = 80
  }
  workload {
    kind             = "conversation"
    length_quantiles = 4
  }
}

scenario "unnamed" {
  load {
    concurrency = 4
    requests    = 80
  }
  workload {
    length_bucket_names = ["short", "long"]
  }
}
