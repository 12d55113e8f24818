# The smallest suite: no target, so it runs against the embedded simulator
# with its default profile.
scenario "hello" {
  load {
    concurrency = 2
    requests    = 20
  }
}
