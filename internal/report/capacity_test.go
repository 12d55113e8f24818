package report

import (
	"testing"

	"github.com/llmgate/llmgate/results"
)

// TestCapacityWording checks how a capacity answer reads: users as whole
// numbers, rates in requests per second, the ends of a search that never
// found a bracket in words.
func TestCapacityWording(t *testing.T) {
	users := func(answer, failedAt float64) *results.Capacity {
		return &results.Capacity{Vary: results.VaryConcurrency, Min: 2, Max: 512, SLO: "ttft.p95 < 40", Answer: answer, FailedAt: failedAt,
			Requests: 80, Probes: []results.Probe{{Load: 8, Passed: true, Requests: 40}, {Load: 10, Requests: 40, Stopped: results.ProbeCannotMeet}}}
	}
	rate := &results.Capacity{Vary: results.VaryRate, Min: 12, Max: 48, SLO: "ttft.p95 < 200", Answer: 18, FailedAt: 19.5}
	for _, tc := range []struct{ got, want string }{
		{CapacityChange(users(8, 10), users(4, 6)), "max users under SLO: 8 → 4"},
		{CapacityChange(nil, users(24, 28)), "max users under SLO: 24"},
		{CapacityChange(users(512, 0), users(0, 2)), "max users under SLO: at least 512 → below 2"},
		{CapacityLine(users(8, 10)), "max users under SLO (ttft.p95 < 40): 8, fails at 10; 2 probes, 80 requests, 1 stopped early"},
		{CapacityChange(rate, rate), "max rate under SLO: 18.0/s → 18.0/s"},
		{CapacityLine(rate), "max rate under SLO (ttft.p95 < 200): 18.0/s, fails at 19.5/s; 0 probes, 0 requests"},
		// an SLO of the suite's variables says what they were, in the units
		// of the metrics they bound
		{CapacityLine(&results.Capacity{Vary: results.VaryConcurrency, Min: 2, Max: 64, Answer: 8, FailedAt: 9,
			SLO:    "ttft.p95 < var.ttft_ms && tpot.p95 < var.tpot_ms && error_rate < var.errors",
			Values: map[string]float64{"var.ttft_ms": 500, "var.tpot_ms": 50, "var.errors": 0.01},
			Units:  map[string]results.Unit{"var.ttft_ms": results.Milliseconds, "var.tpot_ms": results.Milliseconds, "var.errors": results.Ratio}}),
			"max users under SLO (ttft.p95 < var.ttft_ms && tpot.p95 < var.tpot_ms && error_rate < var.errors, with var.errors = 0.010, var.tpot_ms = 50.0ms, var.ttft_ms = 500ms): 8, fails at 9; 0 probes, 0 requests"},
	} {
		if tc.got != tc.want {
			t.Errorf("got  %q\nwant %q", tc.got, tc.want)
		}
	}
}
