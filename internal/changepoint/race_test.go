//go:build race

package changepoint

// raceEnabled is true under -race, which slows the Monte-Carlo test about
// tenfold; it then draws fewer series.
const raceEnabled = true
