// Package scenarios is llmgate's catalog of ready-made suites (*.hcl): the
// first thing a user runs (quickstart.hcl) and worked examples of the suite
// format for common questions about a vLLM deployment. The tests validate
// every suite with the suite package, the same way `llmgate validate` does.
package scenarios
