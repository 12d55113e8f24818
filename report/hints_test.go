package report

import (
	"testing"

	"github.com/llmgate/llmgate/diagnose"
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
