package suite

import (
	"math"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// maxLengthBuckets caps the edges of length_buckets: each bucket is a row
// of the report and needs requests of its own to mean anything.
const maxLengthBuckets = 16

// lengthBuckets evaluates `length_buckets = [512, 2048]`: the input
// lengths, in tokens, that split a run's requests into buckets (here below
// 512, 512 up to 2048, and 2048 and more). The edges are whole numbers of
// at least 1, strictly increasing.
func (e *evaluator) lengthBuckets(attr *hcl.Attribute) ([]int, bool) {
	v, ok := e.value(attr)
	if !ok {
		return nil, false
	}
	const form = "length_buckets must be a list of input lengths in tokens, in increasing order, like [512, 2048]."
	if !v.Type().IsListType() && !v.Type().IsTupleType() {
		e.errorAt(attr, "Incorrect attribute value type", "%s", form)
		return nil, false
	}
	var edges []int
	for it := v.ElementIterator(); it.Next(); {
		_, el := it.Element()
		if el.IsNull() || el.Type() != cty.Number {
			e.errorAt(attr, "Incorrect attribute value type", "%s", form)
			return nil, false
		}
		f, _ := el.AsBigFloat().Float64()
		switch {
		case f != math.Trunc(f) || f < 1 || f > AbsurdTokens:
			e.errorAt(attr, "Invalid length bucket", "length_buckets edge %s must be a whole number of tokens from 1 to %d.", formatNumber(f), AbsurdTokens)
			return nil, false
		case len(edges) > 0 && int(f) <= edges[len(edges)-1]:
			e.errorAt(attr, "Invalid length bucket", "length_buckets edges must increase: %d follows %d. %s", int(f), edges[len(edges)-1], form)
			return nil, false
		}
		edges = append(edges, int(f))
	}
	switch {
	case len(edges) == 0:
		e.errorAt(attr, "Invalid length bucket", "length_buckets is empty; %s", form)
		return nil, false
	case len(edges) > maxLengthBuckets:
		e.errorAt(attr, "Too many length buckets", "length_buckets has %d edges; at most %d, so that each bucket keeps enough requests to compare.", len(edges), maxLengthBuckets)
		return nil, false
	}
	return edges, true
}
