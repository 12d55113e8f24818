package compare

import (
	"math"

	"github.com/llmgate/llmgate/results"
)

// ShiftFraction is how far, as a fraction of a quantile's own change, the
// median must move in the same direction before a Mann-Whitney test of the
// whole distributions counts as evidence about that quantile: the
// distribution then moved as a whole, which is what the test detects.
// Below it only the tail moved, and only the quantile's own interval
// speaks (see quantileTest and TestGateAccuracy).
const ShiftFraction = 0.5

// quantileTest judges a quantile's change by evidence about that quantile:
// the difference of the two Harrell-Davis estimates against its standard
// error (Maritz-Jarrett on each side, plus Config.Drift of each level), a
// two-sided z test. Many serving regressions move only the tail
// (preemptions, a scheduler change, long prefills interfering with
// decodes); a test of the whole distribution hardly sees them. When the
// whole distribution moved (the median at least ShiftFraction as far as
// the quantile, the same way), Mann-Whitney, which uses every request, is
// evidence too, and the smaller p-value stands. be and ce are the
// estimates of bs and cs.
func (c *Comparison) quantileTest(r *Row, br, cr *results.Run, bs, cs []float64, be, ce estimated) {
	r.Test, r.N1, r.N2 = QuantileDifference, len(bs), len(cs)
	d := c.Config.drift()
	r.seBase, r.seCur = withDrift(be.se, be.v, d), withDrift(ce.se, ce.v, d)
	se := math.Hypot(r.seBase, r.seCur)
	r.P = zTestP(ce.v-be.v, se)
	if be.v != 0 && se > 0 { // the interval the test is the dual of
		r.ChangeLo, r.ChangeHi = (r.Delta-1.96*se)/math.Abs(be.v), (r.Delta+1.96*se)/math.Abs(be.v)
	}
	bm, cm := HarrellDavis(bs, 0.5), HarrellDavis(cs, 0.5)
	if bm == 0 || be.v == 0 {
		return
	}
	median, quantile := (cm-bm)/bm, (ce.v-be.v)/be.v
	if median*quantile <= 0 || math.Abs(median) < ShiftFraction*math.Abs(quantile) {
		return
	}
	cmp := c.mannWhitney(br, cr, r.Metric, bs, cs)
	r.shift = cmp.P < c.Config.alpha()
	if cmp.P < r.P {
		r.Test, r.P = WholeShift, cmp.P
	}
}

// withDrift adds a run-to-run drift of the given fraction of level v to a
// run's standard error: the same build measured twice moves its level by a
// few percent whatever the number of requests, which a standard error from
// one run's samples cannot see.
func withDrift(se, v, drift float64) float64 { return math.Hypot(se, drift*v) }

// zTestP is the two-sided p-value of a difference d with standard error se.
func zTestP(d, se float64) float64 {
	switch {
	case se > 0:
		return math.Erfc(math.Abs(d) / se / math.Sqrt2)
	case d == 0:
		return 1
	}
	return 0
}

// confirmQuantile reports whether a quantile row and its confirming rerun
// are significant together: the mean difference of both current runs from
// the one baseline against its pooled standard error (the baseline's error
// counts in full, the current runs' halve), or a whole-distribution shift
// significant in both runs. It sets r.P to the pooled p-value.
func confirmQuantile(r, second *Row, alpha float64) bool {
	se := math.Sqrt(r.seBase*r.seBase + (r.seCur*r.seCur+second.seCur*second.seCur)/4)
	// r.Delta is already the mean of both runs' differences, signed worse-positive.
	p := zTestP(r.Delta, se)
	r.P, r.Test = p, QuantileDifference
	return p < alpha || (r.shift && second.shift)
}
