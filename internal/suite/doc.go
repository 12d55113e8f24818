// Package suite reads llmgate's HCL suites: it decodes and validates them
// with diagnostics that point at the source, expands sweeps into a Plan of
// runs grouped by server, and compiles each run's assert conditions and
// capacity SLO into checks of a results.Summary. It is the only package that
// evaluates HCL: what it hands on (the plan, the gate's compare.Config,
// PlainDiagnostics, ScenarioSources) is plain data. It never touches the
// network.
package suite
