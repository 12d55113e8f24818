package report

import (
	"strconv"
	"strings"

	"github.com/llmgate/llmgate/internal/compare"
)

// Evidence says what the verdict rests on besides the change: the test
// that decided with its p-value and sample sizes, and the change's 95%
// interval, or that there were no samples to test. An interval the
// deciding test is the dual of comes first, as the test's own: "CI
// [+25.0%, +37.1%] maritz-jarrett p<0.001 n=400+400". One the test did
// not make is named after it by what made it, so an interval across zero
// beside a significant test reads as what it is: "mann-whitney (whole
// shift) p<0.001 n=400+400; maritz-jarrett CI [-1.5%, +141.2%]". It is
// the one formatter of evidence: reports and annotations use it.
func Evidence(r *compare.Row) string {
	if !r.Tested() {
		return "no samples"
	}
	if b := r.Brackets; b != nil {
		return "search brackets " + capacityBracket(b.Baseline, b.Vary) + " → " + capacityBracket(b.Current, b.Vary)
	}
	ci := Interval(r)
	if r.Confirm != nil {
		return confirmedEvidence(r, ci)
	}
	test := testPhrase(r.Test, r.P, r.N1, r.N2)
	switch {
	case ci == "":
		return test
	case intervalOfTest(r.Test):
		return "CI " + ci + " " + test
	}
	return test + "; " + intervalSource(r) + " " + ci
}

// confirmedEvidence is the evidence of a row decided over two runs: a
// quantile's test pooled over both runs (compare sets its p-value), or
// each run's test, and the mean of both runs' intervals.
func confirmedEvidence(r *compare.Row, ci string) string {
	s := r.Confirm
	var test string
	switch {
	case r.Test == compare.QuantileDifference && s.Tested():
		test = r.Test.String() + " pooled over both runs " + fmtP(r.P) + " n=" + strconv.Itoa(r.N1) + "+" + strconv.Itoa(r.N2) + "+" + strconv.Itoa(s.N2)
	case s.Tested():
		test = testPhrase(r.Test, r.P, r.N1, r.N2) + " and rerun " + testPhrase(s.Test, s.P, s.N1, s.N2)
	default:
		test = testPhrase(r.Test, r.P, r.N1, r.N2)
	}
	if ci == "" {
		return test
	}
	return test + "; mean of both runs' CIs " + ci
}

// testPhrase is "maritz-jarrett p=0.591 n=400+400".
func testPhrase(t compare.Test, p float64, n1, n2 int) string {
	var parts []string
	if t != compare.NoTest {
		parts = append(parts, t.String())
	}
	return strings.Join(append(parts, fmtP(p), "n="+strconv.Itoa(n1)+"+"+strconv.Itoa(n2)), " ")
}

// intervalOfTest reports whether a row's interval is the one its test is
// the dual of: the quantile difference's (Maritz-Jarrett standard errors
// plus drift) and the jackknife's over block pairs. The other tests make
// no interval; the row's is then its estimates'.
func intervalOfTest(t compare.Test) bool {
	return t == compare.QuantileDifference || t == compare.PairedJackknife
}

// intervalSource names what made a row's interval when its test did not:
// the quantile's standard errors (a whole-shift row) or the mean's.
func intervalSource(r *compare.Row) string {
	switch {
	case r.Test == compare.WholeShift:
		return "maritz-jarrett CI"
	case r.Estimator == compare.SampleMean && r.Test == compare.MannWhitney:
		return "normal CI"
	}
	return "CI of the estimates"
}
