// Package runspec holds the plain data a suite plans and the engines run: the
// load of a run (Load, with its Workload, Ramp and SelfCheck), the server a
// group of runs needs (Target), and what the packages after suite point at
// in a suite file (Source, Diagnostic). The suite decodes into these types,
// load and target take them as they are, and the runner passes them along
// without copying field by field.
//
// It is data only: no behaviour beyond defaults, naming and the --only
// match, and it must not import llmgate's network or runtime packages (load,
// target, sim, runner), a container library or HCL, so that parsing a suite
// links none of them.
package runspec
