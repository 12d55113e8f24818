package telemetry

import (
	"math"
	"sort"

	dto "github.com/prometheus/client_model/go"

	"github.com/llmgate/llmgate/results"
)

// PromHistogram is one Prometheus histogram as a scrape saw it, summed
// across its label sets (engines, models) as `sum by (le)` sums them:
// Bounds are the buckets' upper bounds in increasing order, the last
// +Inf, and Counts their cumulative counts; Sum is the sum of the
// observed values (seconds for vLLM's latencies).
type PromHistogram struct {
	Bounds []float64
	Counts []float64
	Sum    float64
	Count  float64
}

// SplitSnapshot is one scrape of the server's own latency histograms:
// how long its requests waited in its queue, were prefilled, decoded, and
// ran (prefill and decode). A nil field is a histogram the page lacked.
type SplitSnapshot struct {
	Queue, Prefill, Decode, Inference *PromHistogram
}

// The histograms of the split, first name found wins: vLLM's, and
// SGLang's where it exports the same intervals under its own prefix.
var (
	queueTimeNames     = []string{"vllm:request_queue_time_seconds", "sglang:request_queue_time_seconds"}
	prefillTimeNames   = []string{"vllm:request_prefill_time_seconds", "sglang:request_prefill_time_seconds"}
	decodeTimeNames    = []string{"vllm:request_decode_time_seconds", "sglang:request_decode_time_seconds"}
	inferenceTimeNames = []string{"vllm:request_inference_time_seconds", "sglang:request_inference_time_seconds"}
)

// parseSplit reads the split's histograms from a parsed page; nil when it
// has none of them.
func parseSplit(fams map[string]*dto.MetricFamily) *SplitSnapshot {
	sp := &SplitSnapshot{
		Queue:     histogramOf(fams, queueTimeNames),
		Prefill:   histogramOf(fams, prefillTimeNames),
		Decode:    histogramOf(fams, decodeTimeNames),
		Inference: histogramOf(fams, inferenceTimeNames),
	}
	if sp.Queue == nil && sp.Prefill == nil && sp.Decode == nil && sp.Inference == nil {
		return nil
	}
	return sp
}

// histogramOf sums the first of names found across its label sets. A
// histogram whose label sets disagree on their buckets, or with a count,
// bound or sum that is not a finite number (a bound may be +Inf), is left
// out: nothing sound can be read from it.
func histogramOf(fams map[string]*dto.MetricFamily, names []string) *PromHistogram {
	for _, n := range names {
		f, ok := fams[n]
		if !ok {
			continue
		}
		var h *PromHistogram
		for _, m := range f.GetMetric() {
			one, ok := histogramSample(m.GetHistogram())
			if !ok {
				return nil
			}
			if h == nil {
				h = one
				continue
			}
			if !sameBounds(h.Bounds, one.Bounds) {
				return nil
			}
			for i := range h.Counts {
				h.Counts[i] += one.Counts[i]
			}
			h.Sum += one.Sum
			h.Count += one.Count
		}
		return h
	}
	return nil
}

// histogramSample converts one label set's histogram, adding the +Inf
// bucket (the sample count) when the page left it implicit.
func histogramSample(d *dto.Histogram) (*PromHistogram, bool) {
	if d == nil {
		return nil, false
	}
	count := float64(d.GetSampleCount())
	if d.SampleCountFloat != nil {
		count = d.GetSampleCountFloat()
	}
	h := &PromHistogram{Sum: d.GetSampleSum(), Count: count}
	if !finiteNonNeg(count) || math.IsNaN(h.Sum) || math.IsInf(h.Sum, 0) {
		return nil, false
	}
	for _, b := range d.GetBucket() {
		c := float64(b.GetCumulativeCount())
		if b.CumulativeCountFloat != nil {
			c = b.GetCumulativeCountFloat()
		}
		ub := b.GetUpperBound()
		if math.IsNaN(ub) || !finiteNonNeg(c) {
			return nil, false
		}
		h.Bounds = append(h.Bounds, ub)
		h.Counts = append(h.Counts, c)
	}
	if !sort.Float64sAreSorted(h.Bounds) {
		return nil, false
	}
	if n := len(h.Bounds); n == 0 || !math.IsInf(h.Bounds[n-1], 1) {
		h.Bounds = append(h.Bounds, math.Inf(1))
		h.Counts = append(h.Counts, count)
	}
	return h, true
}

func finiteNonNeg(v float64) bool { return v >= 0 && !math.IsInf(v, 1) }

func sameBounds(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// delta is what h counted since before, bucket by bucket: the requests
// of the window between two scrapes. It is false when the two do not
// share their buckets or a count went down (the server restarted: what
// the window held is unknown).
func (h *PromHistogram) delta(before *PromHistogram) (*PromHistogram, bool) {
	if h == nil || before == nil || !sameBounds(h.Bounds, before.Bounds) {
		return nil, false
	}
	d := &PromHistogram{Bounds: h.Bounds, Counts: make([]float64, len(h.Counts)), Sum: h.Sum - before.Sum, Count: h.Count - before.Count}
	if d.Count < 0 || d.Sum < 0 {
		return nil, false
	}
	for i := range h.Counts {
		if d.Counts[i] = h.Counts[i] - before.Counts[i]; d.Counts[i] < 0 {
			return nil, false
		}
	}
	return d, true
}

// Quantile estimates the q-quantile (0 < q < 1) of the values h counted
// as Prometheus's histogram_quantile does: it finds the bucket the rank
// q x count falls in and interpolates linearly between the bucket's
// bounds (from 0 for the first bucket), and answers the highest finite
// bound when the rank falls in the +Inf bucket. Cumulative counts that go
// down are raised to their predecessor first, as histogram_quantile
// does. NaN when h counted nothing or has no finite bucket.
func (h *PromHistogram) Quantile(q float64) float64 {
	n := len(h.Bounds)
	if n < 2 || h.Counts[n-1] <= 0 {
		return math.NaN()
	}
	counts := make([]float64, n)
	for i, c := range h.Counts {
		counts[i] = c
		if i > 0 && counts[i] < counts[i-1] {
			counts[i] = counts[i-1]
		}
	}
	rank := q * counts[n-1]
	b := sort.SearchFloat64s(counts, rank) // the first bucket whose count reaches the rank
	if b >= n-1 {
		return h.Bounds[n-2]
	}
	if b == 0 && h.Bounds[0] <= 0 {
		return h.Bounds[0]
	}
	start, end, count := 0.0, h.Bounds[b], counts[b]
	if b > 0 {
		start = h.Bounds[b-1]
		count -= counts[b-1]
		rank -= counts[b-1]
	}
	return start + (end-start)*(rank/count)
}

// serverLatency is the phase's figures from the window's histogram of
// seconds; nil when the window observed no request.
func serverLatency(d *PromHistogram) *results.ServerLatency {
	if d == nil || d.Count <= 0 {
		return nil
	}
	q := func(p float64) float64 { return 1000 * d.Quantile(p) }
	l := &results.ServerLatency{Requests: d.Count, Mean: 1000 * d.Sum / d.Count, P50: q(0.5), P90: q(0.9), P95: q(0.95), P99: q(0.99)}
	if b := d.Bounds[0]; !math.IsInf(b, 1) && b > 0 {
		l.FirstBucket = 1000 * b
	}
	for _, v := range []float64{l.P50, l.P90, l.P95, l.P99} {
		if math.IsNaN(v) {
			return nil
		}
	}
	return l
}

// splitFrom is the phase's figures over the scrapes of a run, from the
// first scrape that had its histogram to the last one; nil when fewer than
// two had it, they disagree on the buckets, or the counts went back.
func splitFrom(snaps []ServerSnapshot, phase func(*SplitSnapshot) *PromHistogram) *results.ServerLatency {
	var first, last *PromHistogram
	for i := range snaps {
		if sp := snaps[i].Split; sp != nil {
			if h := phase(sp); h != nil {
				if first == nil {
					first = h
				} else {
					last = h
				}
			}
		}
	}
	d, ok := last.delta(first)
	if !ok {
		return nil
	}
	return serverLatency(d)
}

// addSplit fills m's latency split from the run's scrapes.
func addSplit(m *results.ServerMetrics, snaps []ServerSnapshot) {
	m.QueueTime = splitFrom(snaps, func(s *SplitSnapshot) *PromHistogram { return s.Queue })
	m.PrefillTime = splitFrom(snaps, func(s *SplitSnapshot) *PromHistogram { return s.Prefill })
	m.DecodeTime = splitFrom(snaps, func(s *SplitSnapshot) *PromHistogram { return s.Decode })
	m.InferenceTime = splitFrom(snaps, func(s *SplitSnapshot) *PromHistogram { return s.Inference })
}
