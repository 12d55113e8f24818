package compare

import (
	"slices"

	"github.com/llmgate/llmgate/results"
)

// Estimate is one run's value of one metric as Compare judges it: the
// Harrell-Davis estimate of a quantile or the mean of the per-request
// samples, each with its 95% interval, else the summary's value with no
// interval. It is what a history keeps of each run, so that a series of
// runs is the series of the values their gates saw.
type Estimate struct {
	// Value is the estimate.
	Value float64
	// Lo and Hi bound its 95% confidence interval; NaN when there is none
	// (a value without samples, or too few of them).
	Lo, Hi float64
	// Estimator is how Value was estimated.
	Estimator Estimator
	// N is how many per-request samples it was estimated from; 0 for a
	// summary value.
	N int
}

// EstimateRun returns run's estimate of m, and false when the run does not
// have the metric (the same rule as Compare: a latency statistic of 0 ms
// without samples was not measured).
func EstimateRun(run *results.Run, m results.Metric) (Estimate, bool) {
	v, ok := valueOf(run, m)
	if !ok {
		return Estimate{}, false
	}
	var sorted []float64
	if xs := m.Samples(run); len(xs) > 0 {
		sorted = slices.Clone(xs)
		slices.Sort(sorted)
	}
	e := estimate(m, v, sorted)
	out := Estimate{Value: e.v, Lo: e.lo, Hi: e.hi, Estimator: e.estimator}
	if e.estimator != FromSummary {
		out.N = len(sorted)
	}
	return out, true
}
