# Sweep values that would make run names ambiguous: "a,b=c", "x]" and one with a line break.
scenario "chat" {
  sweep {
    model_variant = ["plain", "a,b=c", "x]", "two\nlines"]
  }
  load {
    concurrency = 2
    requests    = 10
  }
}
