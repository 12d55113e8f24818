//go:build race

package compare

// raceEnabled is true under -race, which slows the Monte-Carlo and
// million-request tests about fivefold; they then do less work.
const raceEnabled = true
