package results

// ServerLatency is one phase of the server's latency split over a run's
// measured phase, in milliseconds, from the bucket and sum deltas of its
// histogram: Requests is the count of requests observed, Mean the exact
// mean (Δsum / Δcount), and the quantiles estimates interpolated within
// buckets as Prometheus's histogram_quantile does. vLLM's buckets are
// coarse (0.3 s, 0.5 s, 0.8 s, 1 s, ...): a quantile below 300 ms is read
// off the first bucket as if its values were spread evenly from 0 to
// 300 ms (FirstBucket says how wide it was; reports show such a quantile
// as "≤ 300ms").
type ServerLatency struct {
	Requests float64 `json:"requests"`
	Mean     float64 `json:"mean"`
	P50      float64 `json:"p50"`
	P90      float64 `json:"p90"`
	P95      float64 `json:"p95"`
	P99      float64 `json:"p99"`
	// FirstBucket is the upper bound of the histogram's first bucket, ms:
	// a quantile at or below it is only known to be at most this.
	FirstBucket float64 `json:"first_bucket,omitempty"`
}

// Bounded reports whether v, one of l's quantiles, lies in the histogram's
// first bucket, where the interpolation knows no more than v ≤ FirstBucket.
func (l *ServerLatency) Bounded(v float64) bool { return l.FirstBucket > 0 && v <= l.FirstBucket }
