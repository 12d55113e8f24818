// Package judge is the one place where a current results file is judged
// against a baseline: Judge checks that the files are comparable (suite,
// scenarios, sweep values, each run's load and workload), compares them
// (package compare), confirms the changes a single run could not call with
// the confirming rerun it is given (a single-run rerun, or both sides of an
// A/B rerun, paired), guards all of it against a panic, and decides the
// verdict, its counts and its notes. llmgate gate (on its own run and on
// results measured elsewhere), compare and report all call it, so one pair of files gets
// one verdict.
//
// It runs nothing: the rerun is the caller's (package runner makes it) and
// comes in as data. It never formats (package report does) and never reads
// HCL: its configuration is an already built compare.Config.
package judge
