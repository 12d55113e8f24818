package results

import (
	"strings"
	"testing"
)

// TestWhyNotMeasured checks the reason given for each kind of missing
// metric, and which metrics are not a run's at all.
func TestWhyNotMeasured(t *testing.T) {
	done := Summary{Requests: Requests{Completed: 4, EmptyAnswers: 4}}
	run := &Run{Name: "r", Summary: done, Load: &LoadConfig{Workload: "random"}}
	for _, c := range []struct {
		metric, want string
		applies      bool
	}{
		{"ttft.p95", "no completed request had a first token (4 answers were empty", true},
		{"itl.p99", "in one chunk", true},
		{"server.preemptions", "/metrics", true},
		{"gpu.util.mean", "nvidia-smi", true},
		{"first_turn.ttft.p95", "no conversations", false},
		{"structured.valid_rate", "structured", false},
		{"capacity.rate", "capacity search that varies rate", false},
	} {
		m, ok := LookupMetric(c.metric)
		if !ok {
			t.Fatalf("no metric %s", c.metric)
		}
		if got := m.WhyNotMeasured(&run.Summary); !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want it to say %q", c.metric, got, c.want)
		}
		if got := m.AppliesTo(run); got != c.applies {
			t.Errorf("%s applies: %v, want %v", c.metric, got, c.applies)
		}
	}
	m, _ := LookupMetric("throughput.requests")
	if got := m.WhyNotMeasured(&run.Summary); got != "" {
		t.Errorf("a measured metric has a reason: %q", got)
	}
	conv := &Run{Load: &LoadConfig{Workload: "conversation"}}
	if m, _ := LookupMetric("later_turns.e2el.mean"); !m.AppliesTo(conv) {
		t.Error("a turn metric does not apply to a conversation run")
	}
}
