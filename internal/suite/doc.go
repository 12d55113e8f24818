// Package suite reads llmgate's HCL suites: it decodes and validates them
// with diagnostics that point at the source, expands sweeps into runs
// (package plan's, which the runner takes through Suite.Runnable), and
// compiles each run's assert conditions and capacity SLO into judges of a
// results.Summary (plan.Assert's Judge). It is the only package that
// evaluates HCL: what it hands on (the plan, PlainDiagnostics,
// ScenarioSources) is plain data. It never touches the network.
package suite
