# A mix beside a workload, a member whose order is its own, a rate beside
# stages, a stage that never ends, and asserts on a member and a stage the
# run does not have.
scenario "chat" {
  workload {
    kind = "random"
  }
  mix {
    workload "chat" {
      weight = 3
    }
    workload "talk" {
      kind = "conversation"
    }
  }
  load {
    rate = 5
    stage {
      rate = 5
    }
  }
  assert "rag" {
    condition = mix.rag.ttft.p95 < 500
  }
  assert "third" {
    condition = stage.3.ttft.p95 < 500
  }
}
