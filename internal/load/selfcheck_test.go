package load

import (
	"strings"
	"testing"
	"time"

	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
)

// TestSelfCheckBounds checks a run's figures are judged against the
// config's bounds, and against the defaults where it sets none.
func TestSelfCheckBounds(t *testing.T) {
	late := results.Client{ScheduleLagP99: 120, AchievedRate: 7, PlannedRate: 10}
	cfg := Config{Load: runspec.Load{Rate: 10}}
	h := judgeHealth(cfg, late, 500, 1)
	if got := strings.Join(h.Problems, "; "); !strings.Contains(got, "schedule lag p99 120.0 ms is above the 50ms bound") || !strings.Contains(got, "below 95% of the planned") {
		t.Errorf("default bounds: problems %q", got)
	}
	cfg.SelfCheck = runspec.SelfCheck{MaxScheduleLagP99: 200 * time.Millisecond, MinRateRatio: 0.6}
	if h := judgeHealth(cfg, late, 500, 1); len(h.Problems) != 0 {
		t.Errorf("loosened bounds: problems %q, want none", h.Problems)
	}
	closed := Config{Load: runspec.Load{Concurrency: 10, SelfCheck: runspec.SelfCheck{MinInFlightRatio: 0.5}}}
	busy := results.Client{MeanInFlight: 6}
	if h := judgeHealth(closed, busy, 500, 10); len(h.Problems) != 0 {
		t.Errorf("in flight 6 of 10 at a 50%% bound: problems %q", h.Problems)
	}
	closed.SelfCheck = runspec.SelfCheck{}
	if h := judgeHealth(closed, busy, 500, 10); len(h.Problems) != 1 || !strings.Contains(h.Problems[0], "below 90% of the configured concurrency 10") {
		t.Errorf("in flight 6 of 10 at the default bound: problems %q", h.Problems)
	}
	// users holding a turn for its think time are busy
	thinking := results.Client{MeanInFlight: 0.6, MeanThinking: 3.2}
	four := Config{Load: runspec.Load{Concurrency: 4}}
	if h := judgeHealth(four, thinking, 60, 4); len(h.Problems) != 0 {
		t.Errorf("0.6 in flight and 3.2 thinking of 4: problems %q, want none", h.Problems)
	}
	thinking.MeanThinking = 2
	if h := judgeHealth(four, thinking, 60, 4); len(h.Problems) != 1 || !strings.Contains(h.Problems[0], "mean in flight 0.6 plus 2.0 users thinking (2.6 busy)") {
		t.Errorf("0.6 in flight and 2 thinking of 4: problems %q", h.Problems)
	}
}
