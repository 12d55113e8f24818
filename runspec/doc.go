// Package runspec holds the plain data a suite plans and the engines run: the
// load of a run (Load, with its Workload, Ramp and SelfCheck) and the server
// a group of runs needs (Target). The suite decodes into these types, load
// and target take them as they are, and the runner passes them along without
// copying field by field.
//
// It is data only: no behaviour beyond defaults and naming, and it must not
// import llmgate's network or runtime packages (load, target, sim, runner),
// a container library or HCL, so that parsing a suite links none of them.
package runspec
