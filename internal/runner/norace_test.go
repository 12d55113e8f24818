//go:build !race

package runner

// raceEnabled is false without -race.
const raceEnabled = false
