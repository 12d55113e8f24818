//go:build !race

package changepoint

// raceEnabled is true under -race (see race_test.go).
const raceEnabled = false
