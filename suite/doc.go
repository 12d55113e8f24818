// Package suite reads llmgate's HCL suites: it decodes and validates them
// with diagnostics that point at the source, expands sweeps into a Plan of
// runs grouped by server, and evaluates assert conditions against a run's
// results.Summary. It never touches the network.
package suite
