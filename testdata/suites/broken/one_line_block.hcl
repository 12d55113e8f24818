# Mistake: two arguments in a block written on one line, as is natural to
# type; HCL allows only one there.
scenario "chat" {
  load { concurrency = 8  requests = 200 }
}
