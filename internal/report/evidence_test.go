package report

import (
	"strings"
	"testing"

	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/results"
)

// TestEvidenceNamesTheDecidingTest checks the evidence shows the interval
// as the deciding test's only when it is that test's, and otherwise after
// the test under the name of what made it: a whole-shift regression at
// p<0.001 beside a Maritz-Jarrett interval across zero once read as a
// contradiction ("CI [-1.5%, +141.2%] mann-whitney (whole shift) p<0.001").
func TestEvidenceNamesTheDecidingTest(t *testing.T) {
	p95, _ := results.LookupMetric("ttft.p95")
	mean, _ := results.LookupMetric("ttft.mean")
	row := func(m results.Metric, test compare.Test, est compare.Estimator, p float64) *compare.Row {
		return &compare.Row{Metric: m, Evidence: compare.Evidence{Test: test, P: p, N1: 400, N2: 400},
			ChangeEstimate: compare.ChangeEstimate{Estimator: est, Change: 0.699, ChangeLo: -0.015, ChangeHi: 1.412}}
	}
	tests := []struct {
		name string
		r    *compare.Row
		want string
	}{
		{"whole shift decided", row(p95, compare.WholeShift, compare.HarrellDavisEstimator, 0.0001),
			"mann-whitney (whole shift) p<0.001 n=400+400; maritz-jarrett CI [-1.5%, +141.2%]"},
		{"the quantile's own test", row(p95, compare.QuantileDifference, compare.HarrellDavisEstimator, 0.06),
			"CI [-1.5%, +141.2%] maritz-jarrett p=0.060 n=400+400"},
		{"a mean", row(mean, compare.MannWhitney, compare.SampleMean, 0.0001),
			"mann-whitney p<0.001 n=400+400; normal CI [-1.5%, +141.2%]"},
		{"jackknife over block pairs", row(p95, compare.PairedJackknife, compare.HarrellDavisEstimator, 0.06),
			"CI [-1.5%, +141.2%] jackknife over block pairs p=0.060 n=400+400"},
		{"a whole shift over block pairs", row(p95, compare.PairedShift, compare.HarrellDavisEstimator, 0.0001),
			"paired t over blocks (whole shift) p<0.001 n=400+400; CI of the estimates [-1.5%, +141.2%]"},
	}
	for _, tt := range tests {
		if got := Evidence(tt.r); got != tt.want {
			t.Errorf("%s: evidence %q, want %q", tt.name, got, tt.want)
		}
		if !intervalOfTest(tt.r.Test) && strings.HasPrefix(Evidence(tt.r), "CI ") {
			t.Errorf("%s: the interval comes first as if %s made it", tt.name, tt.r.Test)
		}
	}
}
