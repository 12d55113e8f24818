# Parentheses nested past the limit: refused before the parser recurses.
scenario "deep" {
  load {
    concurrency = ((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((1))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))
    requests    = 10
  }
}
