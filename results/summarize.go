package results

import (
	"math"
	"sort"
	"time"
)

// SummarizeOptions holds the goodput limits of a run, in milliseconds; a zero
// limit is not checked. With no limit set, every completed request is good.
type SummarizeOptions struct {
	GoodputTTFT float64
	GoodputTPOT float64
	GoodputE2EL float64
	// LengthBuckets are the edges (tokens, increasing) of the input-length
	// buckets to summarise; nil for none.
	LengthBuckets []int
	// LengthBucketNames name those buckets, one a bucket; nil for the
	// default names (DefaultBucketNames).
	LengthBucketNames []string
}

// Summarize computes a run's Summary from its records: Analyze's summary.
func Summarize(recs []Record, opts SummarizeOptions) Summary {
	return Analyze(recs, opts).Summary
}

// isGood applies vLLM's goodput rule: every limit that is set must hold
// (value <= limit).
func isGood(o SummarizeOptions, ttft, tpot, e2el float64) bool {
	if o.GoodputTTFT > 0 && ttft > o.GoodputTTFT {
		return false
	}
	if o.GoodputTPOT > 0 && tpot > o.GoodputTPOT {
		return false
	}
	if o.GoodputE2EL > 0 && e2el > o.GoodputE2EL {
		return false
	}
	return true
}

// finish is when the request ended: Finished when recorded, else the last
// content chunk, else the send.
func (r *Record) finish() time.Duration {
	if r.Finished > 0 {
		return r.Finished
	}
	return r.Sent + r.E2EL
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// ComputeStats returns the summary statistics of xs (milliseconds) as numpy
// computes them: mean, population std (ddof=0), median and percentiles by
// linear interpolation. An empty xs gives all zeros, like vLLM's `or 0`.
func ComputeStats(xs []float64) Stats {
	if len(xs) == 0 {
		return Stats{}
	}
	v := sortedCopy(xs)
	mean := Mean(xs)
	dev := make([]float64, len(xs))
	for i, x := range xs {
		d := x - mean
		dev[i] = d * d
	}
	return Stats{
		N:      len(v),
		Mean:   mean,
		Median: median(v),
		Std:    math.Sqrt(pairwiseSum(dev) / float64(len(v))),
		Min:    v[0],
		Max:    v[len(v)-1],
		P50:    Percentile(v, 50),
		P90:    Percentile(v, 90),
		P95:    Percentile(v, 95),
		P99:    Percentile(v, 99),
		P999:   Percentile(v, 99.9),
	}
}

// Mean is the arithmetic mean of xs, summed pairwise as numpy does so that
// long series agree with it to the last bits; 0 for an empty xs.
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	return pairwiseSum(xs) / float64(len(xs))
}

// pairwiseSum adds in blocks like numpy's pairwise summation: plain loops
// below 8 items, eight running sums up to 128, halves above.
func pairwiseSum(xs []float64) float64 {
	n := len(xs)
	switch {
	case n < 8:
		var s float64
		for _, x := range xs {
			s += x
		}
		return s
	case n <= 128:
		var r [8]float64
		copy(r[:], xs[:8])
		i := 8
		for ; i < n-n%8; i += 8 {
			for j := 0; j < 8; j++ {
				r[j] += xs[i+j]
			}
		}
		s := (r[0] + r[1]) + (r[2] + r[3]) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			s += xs[i]
		}
		return s
	default:
		m := n / 2
		m -= m % 8
		return pairwiseSum(xs[:m]) + pairwiseSum(xs[m:])
	}
}

// Percentile returns the p-th percentile (0..100) of the sorted values by
// linear interpolation between closest ranks, numpy's default method, with
// numpy's rounding (q = p/100 first, and the interpolation taken from the
// nearer neighbour) so that results agree to the last bit; 0 for an empty
// slice.
func Percentile(sorted []float64, p float64) float64 {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	h := p / 100 * float64(n-1)
	lo := math.Floor(h)
	i := int(lo)
	if i >= n-1 {
		return sorted[n-1]
	}
	if i < 0 {
		return sorted[0]
	}
	a, b, t := sorted[i], sorted[i+1], h-lo
	d := b - a
	if t >= 0.5 {
		return b - d*(1-t)
	}
	return a + d*t
}

// median is numpy's median of sorted values: the middle one, or the mean of
// the middle two.
func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

func sortedCopy(xs []float64) []float64 {
	v := append([]float64(nil), xs...)
	sort.Float64s(v)
	return v
}
