// Package plan is what a suite expands to, as plain data: the runs, grouped
// by server, each with its load, goodput limits, asserts and capacity
// search, and the gate's baseline and tolerances. Package suite builds it
// when it loads a suite (Suite.Runnable) and compiles each assert into a
// Judge; the runner executes it. It links no HCL: what was an expression in
// the suite file is a function here, made at load time.
package plan
