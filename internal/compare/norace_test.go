//go:build !race

package compare

// raceEnabled is true under -race (see race_test.go).
const raceEnabled = false
