//go:build race

package runner

// raceEnabled is true under -race, which slows the load generator enough
// to move the simulator's latencies by more than the capacity test's step.
const raceEnabled = true
