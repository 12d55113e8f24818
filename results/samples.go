package results

import "math"

// Default ITL histogram geometry: 1 µs to beyond 100 s in 2% steps, so a
// quantile read back from it is within 1% of the true value.
const (
	HistogramBase   = 0.001
	HistogramGrowth = 1.02
)

// NewSamples keeps the per-request values of the measured, completed
// requests of recs (milliseconds) for significance tests: TTFT and E2EL of
// each, TPOT of those with more than one output token, and all ITLs in a
// compact histogram. It is Analyze's samples.
func NewSamples(recs []Record) *Samples {
	return Analyze(recs, SummarizeOptions{}).Samples
}

// NewHistogram returns an empty histogram with the default geometry.
func NewHistogram() *Histogram {
	return &Histogram{Base: HistogramBase, Growth: HistogramGrowth, Counts: []int64{}}
}

// maxBuckets bounds a histogram's length: with the default geometry the
// last bucket starts beyond 10^30 ms, so only a nonsense value (+Inf) lands
// there.
const maxBuckets = 4096

// Add counts one value v (milliseconds); NaN counts as under Base.
func (h *Histogram) Add(v float64) {
	if !(v >= h.Base) || h.Growth <= 1 {
		h.Under++
		return
	}
	i := maxBuckets - 1
	if f := math.Log(v/h.Base) / math.Log(h.Growth); f < maxBuckets {
		i = int(f)
	}
	for len(h.Counts) <= i {
		h.Counts = append(h.Counts, 0)
	}
	h.Counts[i]++
}

// Total is the number of values counted.
func (h *Histogram) Total() int64 {
	n := h.Under
	for _, c := range h.Counts {
		n += c
	}
	return n
}

// Quantile returns an estimate of the q-quantile (0..1): the geometric middle
// of the bucket holding it, Base/2 for values below Base, 0 when empty.
func (h *Histogram) Quantile(q float64) float64 {
	total := h.Total()
	if total == 0 {
		return 0
	}
	rank := int64(math.Ceil(q * float64(total)))
	if rank < 1 {
		rank = 1
	}
	seen := h.Under
	if seen >= rank {
		return h.Base / 2
	}
	for i, c := range h.Counts {
		seen += c
		if seen >= rank {
			return h.Base * math.Pow(h.Growth, float64(i)+0.5)
		}
	}
	return h.Base * math.Pow(h.Growth, float64(len(h.Counts)))
}
