package compare

import (
	"math"

	"github.com/llmgate/llmgate/results"
)

// testCapacity makes the significance test of a capacity row from both
// searches' brackets: each search found its answer in [Answer, FailedAt),
// and loads closer than the search's step are not told apart. The change
// is significant (P 0) when the brackets are apart: the worse side failed at
// a load below one the better side met, or at the very load the better side
// met with both probes there decided with confidence (stopped early as met
// on one side and as unmeetable on the other). Neighbouring brackets
// otherwise differ by one step of the search, which a probe near the SLO
// can flip run to run: not significant (P 1), so a change past the band is
// inconclusive and confirmed by a rerun, and a rerun confirms it when the
// mean change over both runs is past the band and one of the two searches'
// brackets is apart from the baseline's (Confirm).
func testCapacity(r *Row, base, cur *results.Capacity) {
	r.Test, r.N1, r.N2 = SearchBrackets, len(base.Probes), len(cur.Probes)
	r.Brackets = &Brackets{Vary: cur.Vary}
	r.Brackets.Baseline[0], r.Brackets.Baseline[1] = bracket(base)
	r.Brackets.Current[0], r.Brackets.Current[1] = bracket(cur)
	r.P = 1
	if bracketsApart(base, cur) || bracketsApart(cur, base) {
		r.P = 0
	}
}

// bracket returns where a search put the capacity: [Answer, FailedAt), the
// upper end +Inf when the search's maximum met the SLO.
func bracket(c *results.Capacity) (lo, hi float64) {
	if c.FailedAt == 0 {
		return c.Answer, math.Inf(1)
	}
	return c.Answer, c.FailedAt
}

// bracketsApart reports whether worse's search failed at a load that
// better's met: below better's answer, or at it with both decided with
// confidence.
func bracketsApart(better, worse *results.Capacity) bool {
	switch at := worse.FailedAt; {
	case at == 0 || at > better.Answer:
		return false
	case at < better.Answer:
		return true
	default:
		return decidedAt(better, at, results.ProbeMetWithConfidence) && decidedAt(worse, at, results.ProbeCannotMeet)
	}
}

// decidedAt reports whether every probe of c at load was stopped early for
// the reason stopped (and there was one).
func decidedAt(c *results.Capacity, load float64, stopped results.ProbeStop) bool {
	n := 0
	for _, p := range c.Probes {
		if p.Load != load {
			continue
		}
		if p.Stopped != stopped {
			return false
		}
		n++
	}
	return n > 0
}

// Brackets are where two capacity searches put the capacity, each as
// [answer, failed_at) with +Inf when the search's maximum met the SLO.
type Brackets struct {
	// Vary is what the searches varied (results.VaryConcurrency or VaryRate).
	Vary              results.Vary
	Baseline, Current [2]float64
}
