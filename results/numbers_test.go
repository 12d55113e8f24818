package results

import (
	"bytes"
	"math"
	"testing"
)

// TestWriteCleansNonFiniteNumbers writes a file with NaN and infinities in
// a summary, a pointer field, the samples, an assert's values and the
// server series: Write succeeds (encoding/json refused them: "json:
// unsupported value: NaN"), the file reads back, an optional figure is
// absent, and a second write succeeds too.
func TestWriteCleansNonFiniteNumbers(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	power := inf
	f := &File{Version: SchemaVersion, Runs: []Run{{
		Name: "chat", Scenario: "chat", Status: StatusOK,
		Summary: Summary{TTFT: Stats{N: 2, P95: nan, Mean: 10}, GPU: &GPUMetrics{Count: 1, Samples: 1, PowerMeanWatts: &power, PerGPU: []GPUStats{{}}}},
		Samples: &Samples{TTFT: []float64{10, nan, math.Inf(-1)}, TPOT: []float64{1}, E2EL: []float64{20}},
		Asserts: []AssertResult{{Name: "fast", Passed: true, Condition: "ttft.p95 < 100", Values: map[string]float64{"ttft.p95": nan, "tpot.p50": 1}}},
		ServerSeries: &ServerSeries{TMS: []int64{0, 250}, KVCacheUsage: []float64{nan, 0.5}, Running: []float64{1, 2},
			Waiting: []float64{0, inf}, Preemptions: []float64{0, 0}},
	}}}
	for i := range 2 {
		var b bytes.Buffer
		if err := f.Write(&b); err != nil {
			t.Fatalf("write %d: %v", i+1, err)
		}
		got, err := Read(&b)
		if err != nil {
			t.Fatalf("read back %d: %v", i+1, err)
		}
		r := got.Runs[0]
		if r.Summary.TTFT.P95 != 0 || r.Summary.TTFT.Mean != 10 || r.Summary.GPU.PowerMeanWatts != nil {
			t.Errorf("summary %+v, gpu power %v; want p95 0, mean 10 kept, power absent", r.Summary.TTFT, r.Summary.GPU.PowerMeanWatts)
		}
		if s := r.Samples.TTFT; len(s) != 3 || s[0] != 10 || s[1] != 0 || s[2] != 0 {
			t.Errorf("samples %v, want [10 0 0]", s)
		}
		if v := r.Asserts[0].Values; v["ttft.p95"] != 0 || v["tpot.p50"] != 1 {
			t.Errorf("assert values %v", v)
		}
		if ss := r.ServerSeries; ss.KVCacheUsage[0] != 0 || ss.KVCacheUsage[1] != 0.5 || ss.Waiting[1] != 0 {
			t.Errorf("server series %+v", ss)
		}
	}
	if f.CleanNumbers() {
		t.Error("a cleaned file was cleaned again")
	}
}
