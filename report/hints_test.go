package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/diagnose"
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
