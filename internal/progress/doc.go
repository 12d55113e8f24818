// Package progress renders the runner's events for people: a live bar
// redrawn in place on a terminal, plain lines for logs, and GitHub Actions
// log groups around each scenario. The runner reports through
// event.Progress and knows nothing of how its events are shown.
package progress
