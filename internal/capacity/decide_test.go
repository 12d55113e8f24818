package capacity

import (
	"testing"
	"time"

	"github.com/llmgate/llmgate/results"
)

// records returns n completed records whose TTFTs cycle through ttfts (ms).
func records(n int, ttfts ...float64) []results.Record {
	recs := make([]results.Record, n)
	for i := range recs {
		ttft := time.Duration(ttfts[i%len(ttfts)] * float64(time.Millisecond))
		recs[i] = results.Record{Seq: i, Sent: time.Duration(i) * time.Millisecond, TTFT: ttft, E2EL: ttft + 10*time.Millisecond,
			InputTokens: 10, OutputTokens: 10}
	}
	return recs
}

func sloTTFT95(limit float64) func(*results.Summary) bool {
	return func(s *results.Summary) bool { return s.TTFT.P95 < limit }
}

func TestDecide(t *testing.T) {
	// An upper bound on a p95 at 99.7% needs about 170 samples.
	fast := records(300, 10, 11, 12, 13, 14)
	slow := records(100, 100, 110, 120)
	mixed := records(100, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 40) // 5% at 40
	// The burn-in is left out: a slow first wave does not fail the probe.
	wave := append(records(50, 500), records(250, 10)...)
	if d := Decide(wave, 600, 50, results.SummarizeOptions{}, sloTTFT95(50)); d.Stopped != results.ProbeMetWithConfidence {
		t.Errorf("slow first wave of 50 left out: Stopped = %q, want met", d.Stopped)
	}
	if d := Decide(wave, 600, 0, results.SummarizeOptions{}, sloTTFT95(50)); d.Stopped == results.ProbeMetWithConfidence {
		t.Error("slow first wave counted: Stopped = met, want undecided or cannot meet")
	}
	for _, c := range []struct {
		name    string
		recs    []results.Record
		planned int
		limit   float64
		want    results.ProbeStop
	}{
		{"far below the limit", fast, 600, 50, results.ProbeMetWithConfidence},
		{"p95 unbounded from above on 100 samples", fast[:100], 600, 50, ""},
		{"far above the limit", slow, 200, 50, results.ProbeCannotMeet},
		{"too few requests yet", fast[:10], 200, 50, ""},
		{"below a quarter of the plan", fast[:90], 400, 50, ""},
		{"all requests in", fast, 300, 50, ""},
		{"p95 right at the limit", mixed, 200, 35, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := Decide(c.recs, c.planned, 0, results.SummarizeOptions{}, sloTTFT95(c.limit))
			if d.Stopped != c.want {
				t.Errorf("Stopped = %q, want %q (p95 bounds %.1f..%.1f)", d.Stopped, c.want, d.Low.TTFT.P95, d.High.TTFT.P95)
			}
			if c.want != "" && !(d.Low.TTFT.P95 <= d.High.TTFT.P95) {
				t.Errorf("bounds out of order: %v > %v", d.Low.TTFT.P95, d.High.TTFT.P95)
			}
		})
	}
}
