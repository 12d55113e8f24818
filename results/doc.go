// Package results is the data at the middle of llmgate's pipeline: per-request
// records from load become a Summary per run, and runs, asserts and environment
// metadata are kept in the versioned results file that compare and report read.
package results
