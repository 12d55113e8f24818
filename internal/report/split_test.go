package report

import (
	"strings"
	"testing"

	"github.com/llmgate/llmgate/results"
)

func splitFile() *results.File {
	f := runTableFile()
	s := &f.Runs[0].Summary
	s.TTFT.Mean = 900
	s.Server = &results.ServerMetrics{
		QueueTime:   &results.ServerLatency{Requests: 40, Mean: 600, P95: 1450},
		PrefillTime: &results.ServerLatency{Requests: 40, Mean: 250, P95: 290, FirstBucket: 300},
		DecodeTime:  &results.ServerLatency{Requests: 40, Mean: 3100},
	}
	return f
}

// TestRunTableServerSplit shows the server's queue and prefill time beside
// the client's TTFT and what is left of it; a phase the server lacks is
// "-", and a server without the histograms adds no table.
func TestRunTableServerSplit(t *testing.T) {
	var b strings.Builder
	if err := RunTable(&b, splitFile()); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{"the server's latency split (its own histograms",
		"run   TTFT mean  queue mean  prefill mean   other  queue p95  prefill p95  decode mean  inference mean",
		"chat      900ms       600ms         250ms  50.0ms     1450ms       ≤300ms       3100ms               -"} {
		if !strings.Contains(got, want) {
			t.Errorf("run table lacks %q:\n%s", want, got)
		}
	}
	b.Reset()
	if err := RunTable(&b, runTableFile()); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "latency split") {
		t.Errorf("a server without the histograms has a split table:\n%s", b.String())
	}
	m := &mdBuilder{limit: 1 << 16}
	mdServerSplit(m, splitFile())
	if got := m.b.String(); !strings.Contains(got, "| chat | 900ms | 600ms | 250ms | 50.0ms | 1450ms | ≤300ms | 3100ms | - |") {
		t.Errorf("markdown lacks the split row:\n%s", got)
	}
}
