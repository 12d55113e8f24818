// Package words holds the one way llmgate's outputs count things in
// English: "1 run", "3 runs".
package words

import "strconv"

// Count is n with the noun that fits it: one when n is 1, else many.
func Count(n int, one, many string) string {
	return strconv.Itoa(n) + " " + Pick(n, one, many)
}

// Pick is the noun that fits n, without n: one when n is 1, else many.
func Pick(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
