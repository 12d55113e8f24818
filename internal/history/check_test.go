package history

import (
	"testing"
	"time"

	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/internal/comparetest"
	"github.com/llmgate/llmgate/results"
)

// stepHistory is 20 entries of chat at 100 ms TTFT, then from entry 12 on
// at 130 ms, with entry 5 invalid and entry 15 failed (kept, not used).
func stepHistory(t *testing.T) []*Entry {
	var es []*Entry
	for i := 0; i < 20; i++ {
		level, status := 100.0, results.StatusOK
		if i >= 12 {
			level = 130
		}
		switch i {
		case 5:
			status, level = results.StatusInvalid, 500 // its numbers must not count
		case 15:
			status = results.StatusFailed
		}
		es = append(es, mustEntry(t, fixture(i, level, status)))
	}
	return es
}

var ttftTolerance = []compare.Tolerance{{Metric: "ttft.p95", Relative: true, Amount: 0.10}, {Metric: "throughput.output_tokens", Relative: true, Amount: 0.05}}

func TestCheckFindsStep(t *testing.T) {
	es := stepHistory(t)
	res := Check(es, nil, CheckOptions{Tolerances: ttftTolerance})
	if len(res.Series) != 4 {
		t.Fatalf("%d series, want chat and batch × 2 metrics", len(res.Series))
	}
	un := res.Unaccepted()
	if len(un) != 1 {
		t.Fatalf("unaccepted regressions %d, want 1: %+v", len(un), res.All())
	}
	f := un[0]
	if f.Series.Run != "chat" || f.Series.Metric.Name != "ttft.p95" {
		t.Errorf("change point in %s %s", f.Series.Run, f.Series.Metric.Name)
	}
	before, after := f.Series.Points[f.Before].Entry, f.Series.Points[f.After].Entry
	if before != es[11] || after != es[12] {
		t.Errorf("change between %s and %s, want entries 11 and 12", before.ID, after.ID)
	}
	if f.Change < 0.2 || f.Change > 0.4 || f.P > 0.01 || !f.Regression {
		t.Errorf("change %+.3f p %.3f regression %v", f.Change, f.P, f.Regression)
	}
	if f.Since != 7 { // entries 12..19 less the failed 15
		t.Errorf("since %d, want 7 used entries", f.Since)
	}
	// The invalid and failed entries are in the series, not in its evidence.
	s := f.Series
	if len(s.Points) != 20 || len(s.Used()) != 18 || s.Searched != 18 {
		t.Errorf("points %d, used %d, searched %d", len(s.Points), len(s.Used()), s.Searched)
	}
	// --last 5 leaves it out; --last 7 keeps it.
	if n := len(Check(es, nil, CheckOptions{Tolerances: ttftTolerance, Last: 5}).All()); n != 0 {
		t.Errorf("--last 5 kept %d change points", n)
	}
	if n := len(Check(es, nil, CheckOptions{Tolerances: ttftTolerance, Last: 7}).Unaccepted()); n != 1 {
		t.Errorf("--last 7 kept %d", n)
	}
	// A least magnitude above the step merges it away.
	if n := len(Check(es, nil, CheckOptions{Tolerances: ttftTolerance, MinChange: 0.5}).All()); n != 0 {
		t.Errorf("a 50%% least magnitude kept %d change points", n)
	}
}

func TestAcceptanceCovers(t *testing.T) {
	es := stepHistory(t)
	at := comparetest.Epoch.Add(100 * time.Hour)
	for _, tc := range []struct {
		name   string
		entry  int
		metric string
		covers bool
	}{
		{"at the change", 12, "ttft.p95", true},
		{"two entries later", 14, "ttft.p95", true}, // 14 is the used entry two after 12
		{"three used entries later", 16, "ttft.p95", false},
		{"another metric", 12, "throughput.output_tokens", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := NewAcceptance("quick", "chat", tc.metric, es[tc.entry], "octocat", "expected", at)
			if err != nil {
				t.Fatal(err)
			}
			res := Check(es, []*Acceptance{a}, CheckOptions{Tolerances: ttftTolerance})
			if got := len(res.Unaccepted()) == 0; got != tc.covers {
				t.Errorf("covered %v, want %v", got, tc.covers)
			}
		})
	}
	if _, err := NewAcceptance("quick", "chat", "ttft.p95", es[12], "octocat", "  ", at); err == nil {
		t.Error("an acceptance without a reason was made")
	}
}

func TestCheckImprovementIsNoRegression(t *testing.T) {
	var es []*Entry
	for i := 0; i < 16; i++ {
		level := 130.0
		if i >= 8 {
			level = 100
		}
		es = append(es, mustEntry(t, fixture(i, level, results.StatusOK)))
	}
	res := Check(es, nil, CheckOptions{Tolerances: ttftTolerance})
	if len(res.All()) != 1 || len(res.Unaccepted()) != 0 || res.All()[0].Regression {
		t.Errorf("a 23%% improvement: %+v", res.All())
	}
}

func TestBaselineMedianEntry(t *testing.T) {
	// Seven entries; of the newest five, entry 4 ran slow (an unlucky
	// runner) and entry 6 fast: the median entry is one of the others.
	levels := []float64{100, 100, 100, 101, 140, 99, 70}
	var es []*Entry
	for i, l := range levels {
		es = append(es, mustEntry(t, fixture(i, l, results.StatusOK)))
	}
	es[5].Ref = "refs/heads/other"
	for _, ref := range []string{"", "refs/heads/main"} {
		f, choices, err := Baseline(es, BaselineOptions{Suite: "quick", Ref: ref, Metrics: []string{"ttft.p95", "e2el.p95"}, Source: "history:h"})
		if err != nil {
			t.Fatal(err)
		}
		if len(f.Runs) != 2 || f.Runs[0].Name != "chat" || len(choices) != 2 || f.Provenance.Source != "history:h" {
			t.Fatalf("ref %q: baseline of %d runs, %d choices", ref, len(f.Runs), len(choices))
		}
		c := choices[0]
		if len(c.Among) != 5 || c.Chosen == es[4] || c.Chosen == es[6] {
			t.Errorf("ref %q: chose %s among %v", ref, c.Chosen.ID, ids(c.Among))
		}
		for _, e := range c.Among {
			if ref != "" && e == es[5] {
				t.Errorf("an entry of another ref was among the candidates")
			}
		}
		if f.Runs[0].Samples == nil || &f.Runs[0].Samples.TTFT[0] != &c.Chosen.Results().Runs[0].Samples.TTFT[0] {
			t.Errorf("the baseline run is not the chosen entry's run")
		}
		if err := compare.CheckComparable(f, es[6].Results()); err != nil {
			t.Errorf("the baseline is not comparable with a run of its suite: %v", err)
		}
	}
	if f, _, err := Baseline(es, BaselineOptions{Suite: "nothing"}); f != nil || err != nil {
		t.Errorf("a suite with no entries: %v %v", f, err)
	}
}
