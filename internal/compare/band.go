package compare

import "github.com/llmgate/llmgate/untrusted"

// The band is what the user said a change may cost: max_regression = "10%"
// means 10% worse is acceptable. So a change whose estimate (Row.Change on
// a relative band, Row.Delta on an absolute one) is inside the band is
// never a regression, however strong the evidence that it is real: every
// rule (one run, a confirming rerun, the block pairs of an A/B job) asks
// pastBand before it calls one, and a significant change inside the band
// is unchanged, marked Row.SignificantInBand (inBand).

// bandValue is the row's worse-signed change in the terms of its band.
func bandValue(r *Row) float64 {
	if r.Tolerance.Relative {
		return r.Change
	}
	return r.Delta
}

// pastBand reports whether the row's estimate is worse than its band
// allows: only such a change can be a regression.
func pastBand(r *Row) bool { return bandValue(r) > r.Tolerance.Amount }

// inBand makes r unchanged for reason, a change inside the band; worse
// says the evidence found it significantly worse, which the row keeps
// (SignificantInBand) and its reason says, though the band allows it.
func inBand(r *Row, reason untrusted.String, worse bool) {
	r.Verdict, r.Reason, r.Rerun = Unchanged, reason, false
	if worse && bandValue(r) > 0 {
		r.SignificantInBand = true
		r.Reason = "significant, but " + reason
	}
}
