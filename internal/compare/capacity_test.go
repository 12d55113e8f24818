package compare

import (
	"testing"

	"github.com/llmgate/llmgate/results"
)

// capacityFile is a results file of one capacity search over users: the
// probes are (load, passed, stopped early for) in the order they ran.
func capacityFile(probes ...results.Probe) *results.File {
	c := &results.Capacity{Vary: results.VaryConcurrency, Min: 4, Max: 64, Probes: probes}
	for _, p := range probes {
		switch {
		case p.Passed && p.Load > c.Answer:
			c.Answer = p.Load
		case !p.Passed && (c.FailedAt == 0 || p.Load < c.FailedAt):
			c.FailedAt = p.Load
		}
	}
	run := results.Run{Name: "max_users", Status: results.StatusOK, Capacity: c,
		Summary: results.Summary{Capacity: &results.CapacityAnswer{Vary: results.VaryConcurrency, Value: c.Answer}}}
	return &results.File{Version: results.SchemaVersion, Runs: []results.Run{run}}
}

func met(load float64, stopped results.ProbeStop) results.Probe {
	return results.Probe{Load: load, Passed: true, Stopped: stopped, Status: results.StatusOK}
}

func missed(load float64, stopped results.ProbeStop) results.Probe {
	return results.Probe{Load: load, Passed: false, Stopped: stopped, Status: results.StatusOK}
}

// A capacity row is judged by the searches' brackets: one step of the
// search down, at a load each side decided from a full probe, is within
// what a probe near the SLO flips run to run, so it asks for a rerun
// rather than failing the gate; a search that failed below a load the
// baseline met, or at it with both probes decided with confidence, is a
// regression; a rerun confirms a one-step drop only if its brackets are
// apart too.
func TestCapacityJudgedByBrackets(t *testing.T) {
	cfg := Config{Tolerances: []Tolerance{{Metric: "capacity.concurrency", Relative: true, Amount: 0.10}}}
	// the baseline met 16 (and 4, 8), failed 32 and 24, met 20: [20, 24)
	base := capacityFile(met(4, ""), met(8, ""), met(16, ""), missed(32, ""), missed(24, ""), met(20, ""))
	cases := []struct {
		name     string
		cur      *results.File
		rerun    *results.File
		want     Verdict
		evidence bool // brackets apart
	}{
		{"same", capacityFile(met(4, ""), met(8, ""), met(16, ""), missed(32, ""), missed(24, ""), met(20, "")), nil, Unchanged, false},
		// [16, 20) against [20, 24): failed at 20, which the baseline met
		// after a full probe: one step, not told apart
		{"one step", capacityFile(met(4, ""), met(8, ""), met(16, ""), missed(32, ""), missed(24, ""), missed(20, "")), nil, Inconclusive, false},
		// the same, both probes at 20 decided with confidence
		{"one step, confident", capacityFile(met(4, ""), met(8, ""), met(16, ""), missed(32, ""), missed(24, ""), missed(20, results.ProbeCannotMeet)), nil, Inconclusive, false},
		// failed at 16, below the baseline's 20: apart, and −40 %
		{"apart", capacityFile(met(4, ""), met(8, ""), missed(16, ""), met(12, "")), nil, Regression, true},
		// a one-step drop confirmed by a rerun whose brackets are apart
		{"confirmed", capacityFile(met(4, ""), met(8, ""), met(16, ""), missed(32, ""), missed(24, ""), missed(20, "")),
			capacityFile(met(4, ""), met(8, ""), missed(16, ""), met(12, "")), Regression, false},
		// a one-step drop that the rerun repeats: still a step of the search
		{"repeated step", capacityFile(met(4, ""), met(8, ""), met(16, ""), missed(32, ""), missed(24, ""), missed(20, "")),
			capacityFile(met(4, ""), met(8, ""), met(16, ""), missed(32, ""), missed(24, ""), missed(20, "")), Inconclusive, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var c *Comparison
			if tc.rerun != nil {
				c = Confirm(base, tc.cur, tc.rerun, cfg)
			} else {
				c = Compare(base, tc.cur, cfg)
			}
			r := c.Rows[0]
			if r.Verdict != tc.want {
				t.Errorf("verdict %s (%s, change %.2f), want %s", r.Verdict, r.Reason, r.Change, tc.want)
			}
			if r.Test != SearchBrackets || r.Brackets == nil {
				t.Fatalf("test %s, brackets %v: want the search brackets", r.Test, r.Brackets)
			}
			if got := r.Significant(0.05); got != tc.evidence {
				t.Errorf("brackets %v apart = %v, want %v", *r.Brackets, got, tc.evidence)
			}
			if got, want := r.Brackets.Baseline, [2]float64{20, 24}; got != want {
				t.Errorf("baseline bracket %v, want %v", got, want)
			}
		})
	}
}

// The confident case: both probes at the shared load were decided with
// confidence (met early on one side, unmeetable early on the other), so a
// drop of one step is apart.
func TestCapacityBracketsDecidedWithConfidence(t *testing.T) {
	cfg := Config{Tolerances: []Tolerance{{Metric: "capacity.concurrency", Relative: true, Amount: 0.10}}}
	base := capacityFile(met(4, ""), met(8, results.ProbeMetWithConfidence), missed(16, ""), missed(12, ""))
	cur := capacityFile(met(4, ""), missed(8, results.ProbeCannotMeet), missed(6, ""))
	r := Compare(base, cur, cfg).Rows[0]
	if !r.Significant(0.05) || r.Verdict != Regression {
		t.Errorf("verdict %s (%s), apart %v: want a regression with the brackets apart", r.Verdict, r.Reason, r.Significant(0.05))
	}
}
