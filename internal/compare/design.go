package compare

import "github.com/llmgate/llmgate/results"

// Design is how the two sides of a comparison were measured. Compare
// chooses it once, from what the files are, before it tests anything (as
// benchmath's Assumption is chosen before its test), and every row and
// every confirming rerun of the comparison is tested by it.
type Design int

// Designs.
const (
	// Unpaired: the sides come from separate jobs (a baseline file and a
	// current run). Each row is tested over the requests of both runs, and
	// a rerun of the current runs confirms it (Confirm).
	Unpaired Design = iota
	// Paired: the files are the two sides of one A/B job (both marked
	// results.AB, one side each). Each run split into block pairs is
	// tested over its pairs, and an A/B rerun of both sides confirms it
	// (ConfirmAB); a run of fewer than two pairs, which no paired test can
	// judge, is tested as unpaired.
	Paired
)

// String names the design as reports and JSON do.
func (d Design) String() string {
	if d == Paired {
		return "paired"
	}
	return "unpaired"
}

// MarshalText encodes the design by its name.
func (d Design) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// DesignOf is the design of a comparison of cur against base: Paired when
// they are the two sides of an A/B job, else Unpaired (two candidate
// sides of different jobs are not pairs).
func DesignOf(base, cur *results.File) Design {
	if base != nil && cur != nil && base.AB != nil && cur.AB != nil && base.AB.Side != cur.AB.Side {
		return Paired
	}
	return Unpaired
}

// pairs is the number of block pairs the comparison judges the runs br
// and cr over: heldPairs under the Paired design, else none.
func (c *Comparison) pairs(br, cr *results.Run) int {
	if c.Design != Paired {
		return 0
	}
	return heldPairs(br, cr)
}
