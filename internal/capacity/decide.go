package capacity

import (
	"math"
	"sort"

	"github.com/llmgate/llmgate/results"
)

// Z is the normal quantile of the confidence bounds Decide uses. A probe
// is looked at about ten times, so each look uses a stricter bound than a
// single test would (3 is about 99.7% two-sided).
const Z = 2.5

// MinDecided is the fewest measured requests, and MinFraction the
// smallest fraction of the planned ones, before Decide decides anything.
const (
	MinDecided  = 20
	MinFraction = 0.25
)

// huge stands for "no bound yet" in a summary handed to an SLO: an upper
// bound the samples cannot give (max of unseen requests).
const huge = 1e300

// Decision is what Decide concluded.
type Decision struct {
	// Stopped is "", results.ProbeCannotMeet or results.ProbeMetWithConfidence.
	Stopped results.ProbeStop
	// Low and High are the summaries at the optimistic and pessimistic
	// ends of each latency statistic's confidence interval.
	Low, High results.Summary
}

// Decide judges a probe part-way: recs are its records so far, planned the
// number of measured requests it will send when not stopped, and burnIn
// the number of measured records to leave out at the start (the first
// wave of a closed loop, all sent at once, is slower than what follows). slo judges a
// summary. Every latency statistic (ttft, tpot, e2el) is replaced by the
// ends of its confidence interval: its lower ends in Low, upper ends in
// High; other metrics keep their value so far. When slo agrees on Low and
// High, the probe's outcome is decided: met with confidence when both
// pass, cannot be met when both fail. An SLO over metrics other than the
// latencies (throughput, error rate) is thus judged on the values so far.
func Decide(recs []results.Record, planned, burnIn int, opts results.SummarizeOptions, slo func(*results.Summary) bool) Decision {
	var kept []results.Record
	measured := 0
	for i := range recs {
		if recs[i].Warmup {
			continue
		}
		measured++
		if measured > burnIn {
			kept = append(kept, recs[i])
		}
	}
	if len(kept) < MinDecided || float64(measured) < MinFraction*float64(planned) || measured >= planned {
		return Decision{}
	}
	recs = kept
	a := results.Analyze(recs, opts)
	sum, samples := a.Summary, a.Samples
	d := Decision{Low: sum, High: sum}
	for _, f := range []struct {
		values    []float64
		low, high *results.Stats
	}{
		{samples.TTFT, &d.Low.TTFT, &d.High.TTFT},
		{samples.TPOT, &d.Low.TPOT, &d.High.TPOT},
		{samples.E2EL, &d.Low.E2EL, &d.High.E2EL},
	} {
		bound(f.values, f.low, f.high)
	}
	lo, hi := slo(&d.Low), slo(&d.High)
	switch {
	case lo && hi:
		d.Stopped = results.ProbeMetWithConfidence
	case !lo && !hi:
		d.Stopped = results.ProbeCannotMeet
	}
	return d
}

// bound sets each statistic of low and high to the lower and upper end of
// its confidence interval given the samples so far: quantiles by order
// statistics (the binomial count of samples below the quantile), the mean
// by its standard error, the maximum from above by "unknown" and the
// minimum from below by 0.
func bound(values []float64, low, high *results.Stats) {
	n := len(values)
	if n == 0 {
		return
	}
	v := append([]float64(nil), values...)
	sort.Float64s(v)
	q := func(p float64) (float64, float64) {
		sd := math.Sqrt(float64(n) * p * (1 - p))
		lo := int(math.Floor(float64(n)*p - Z*sd - 1))
		hi := int(math.Ceil(float64(n)*p + Z*sd))
		l, h := 0.0, huge
		if lo >= 0 {
			l = v[lo]
		}
		if hi < n {
			h = v[hi]
		}
		return l, h
	}
	low.P50, high.P50 = q(0.5)
	low.Median, high.Median = low.P50, high.P50
	low.P90, high.P90 = q(0.9)
	low.P95, high.P95 = q(0.95)
	low.P99, high.P99 = q(0.99)
	low.P999, high.P999 = q(0.999)
	se := Z * low.Std / math.Sqrt(float64(n))
	low.Mean, high.Mean = max(low.Mean-se, 0), high.Mean+se
	high.Max = huge
	low.Min = 0
}
