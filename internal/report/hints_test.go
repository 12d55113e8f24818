package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/internal/diagnose"
	"github.com/llmgate/llmgate/results"
)

func TestHintLink(t *testing.T) {
	got := HintLink([]string{"ttft.p99"}, []diagnose.Change{{Name: "server.preemptions", Base: 0, Cur: 19}, {Name: "server.kv_cache_usage.max", Base: 0.71, Cur: 0.999}})
	want := "ttft.p99 regressed; server.preemptions 0 → 19, server.kv_cache_usage.max 0.710 → 0.999"
	if got != want {
		t.Errorf("HintLink = %q, want %q", got, want)
	}
	if HintLink(nil, []diagnose.Change{{Name: "x", Base: 1, Cur: 2}}) != "" {
		t.Error("a link without a regression")
	}
}

func TestHTMLServerSeries(t *testing.T) {
	base, cur, c := fixture()
	cur.Runs[0].ServerSeries = &results.ServerSeries{TMS: []int64{0, 250, 500}, KVCacheUsage: []float64{0.2, 0.5, 0.9},
		Running: []float64{4, 8, 8}, Waiting: []float64{0, 2, 5}}
	var b bytes.Buffer
	if err := HTML(&b, cur, base, c); err != nil {
		t.Fatal(err)
	}
	if page := b.String(); !strings.Contains(page, cur.Runs[0].Name+": server over time") {
		t.Error("no server time-series chart for a run with a series")
	}
}

// TestHintValuesInUnits checks a hint's evidence reads in its units: a
// sweep's users as the whole number they are (it read "concurrency =
// 16.0"), a metric's in the metric's unit.
func TestHintValuesInUnits(t *testing.T) {
	h := diagnose.Hint{Run: "sweep[concurrency=16]", What: "throughput stopped growing", Next: "look at the KV cache",
		Evidence: []diagnose.Evidence{{Name: "concurrency", Value: 8, Unit: results.Count}, {Name: "throughput.output_tokens", Value: 6672.4},
			{Name: "concurrency", Value: 16, Unit: results.Count}, {Name: "tpot.p50", Value: 12.34}, {Name: "server.preemptions", Value: 19}}}
	want := "sweep[concurrency=16]: throughput stopped growing (concurrency = 8, throughput.output_tokens = 6672/s, concurrency = 16, tpot.p50 = 12.3ms, server.preemptions = 19); next: look at the KV cache"
	if got := HintLine(h); got != want {
		t.Errorf("HintLine =\n%q, want\n%q", got, want)
	}
}
