package results

import (
	"math"
	"testing"
	"time"
)

func TestNewSamples(t *testing.T) {
	recs := []Record{
		{Warmup: true, TTFT: time.Second, E2EL: 2 * time.Second, OutputTokens: 2},
		{TTFT: 10 * time.Millisecond, E2EL: 30 * time.Millisecond, OutputTokens: 3, ITL: []float64{10, 10}},
		{TTFT: 20 * time.Millisecond, E2EL: 20 * time.Millisecond, OutputTokens: 1},
		{Error: "x", TTFT: 5 * time.Millisecond},
	}
	s := NewSamples(recs)
	if len(s.TTFT) != 2 || s.TTFT[0] != 10 || s.TTFT[1] != 20 {
		t.Errorf("TTFT %v, want [10 20] (warmup and failures dropped)", s.TTFT)
	}
	if len(s.TPOT) != 1 || s.TPOT[0] != 10 {
		t.Errorf("TPOT %v, want [10] (only requests with more than one token)", s.TPOT)
	}
	if s.ITL.Total() != 2 {
		t.Errorf("ITL histogram holds %d values, want 2", s.ITL.Total())
	}
}

func TestHistogramQuantileWithinTwoPercent(t *testing.T) {
	h := NewHistogram()
	for i := 1; i <= 1000; i++ {
		h.Add(float64(i) / 10) // 0.1 .. 100 ms
	}
	h.Add(0) // below Base
	for _, q := range []float64{0.5, 0.9, 0.99} {
		want := q * 100
		if got := h.Quantile(q); math.Abs(got-want)/want > 0.02 {
			t.Errorf("q%.2f = %.3f, want %.3f within 2%%", q, got, want)
		}
	}
	if h.Quantile(0) != HistogramBase/2 {
		t.Errorf("q0 = %v, want the below-base value", h.Quantile(0))
	}
}

// Nonsense values are counted, not a panic or a huge allocation.
func TestHistogramAddNonFinite(t *testing.T) {
	h := NewHistogram()
	h.Add(math.NaN())
	h.Add(math.Inf(1))
	h.Add(-1)
	if h.Total() != 3 || len(h.Counts) > maxBuckets {
		t.Errorf("total %d, %d buckets", h.Total(), len(h.Counts))
	}
}
