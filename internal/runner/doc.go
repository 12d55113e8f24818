// Package runner executes a suite's plan, a plan.Suite: plain data, so the
// runner links no HCL, and each assert is a Judge the suite compiled when it
// loaded. For each group of runs that share a server it brings the target
// up, drives every run through load, scrapes the server, evaluates the
// asserts and writes the results file after each run, then stops the
// target. Gate goes on to compare the results with the baseline, confirm
// unclear changes by a rerun and decide the verdict. It only sequences the
// other stages; what it is doing is reported through event.Progress
// (package progress/event, a leaf, so that the renderer links no runner),
// which the progress package renders for the CLI.
package runner
