package report

import (
	stdhtml "html"
	"math"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/internal/comparetest"
	"github.com/llmgate/llmgate/results"
)

// confirmed compares a current run 12% slower than the baseline, which a
// single run cannot call, and confirms it with a rerun back at the
// baseline: the row is decided by the mean of both runs.
func confirmed(t *testing.T) (*compare.Comparison, *compare.Row) {
	t.Helper()
	run := func(ttft float64, seed uint64) *results.File {
		return comparetest.File(results.Environment{}, comparetest.RunSpec{Name: "chat", TTFT: ttft, TPOT: 9, E2EL: 2000,
			OutTokPerSec: 1000, ReqPerSec: 4, CV: 0.1, N: 300, Seed: seed})
	}
	cfg := compare.Config{Tolerances: []compare.Tolerance{{Metric: "ttft.p95", Relative: true, Amount: 0.10}}}
	c := compare.Confirm(run(100, 1), run(112, 2), run(100, 3), cfg)
	r := &c.Rows[0]
	if r.Confirm == nil {
		t.Fatalf("the row was not decided over two runs: %s (%s)", r.Verdict, r.Reason)
	}
	return c, r
}

// TestConfirmedRowShowsWhatDecided checks a row decided over two runs
// shows the values the decision used: the current value is the mean of
// both runs (both listed), whose change from the baseline is the change
// shown, and the evidence gives the test over both runs. It once showed the first
// run's value beside the mean change ("51.5ms → 60.8ms, -4.0%").
func TestConfirmedRowShowsWhatDecided(t *testing.T) {
	c, r := confirmed(t)
	cur := Current(r)
	if got := (cur - r.Baseline) / r.Baseline; math.Abs(got-r.Change) > 1e-9 {
		t.Errorf("baseline %.3f → current %.3f is a change of %+.4f, but the row's change is %+.4f", r.Baseline, cur, got, r.Change)
	}
	u := r.Metric.Unit
	cell := Value(cur, u) + " (mean of " + Value(r.Current, u) + ", " + Value(r.Confirm.Current, u) + ")"
	var term, narrow strings.Builder
	if err := Terminal(&term, c, TerminalOptions{Wide: true}); err != nil {
		t.Fatal(err)
	}
	if err := Terminal(&narrow, c, TerminalOptions{}); err != nil {
		t.Fatal(err)
	}
	// the default table has room for the mean only, marked as one
	if want := Value(cur, u) + " (mean)"; !strings.Contains(narrow.String(), want) || !strings.Contains(narrow.String(), "(2 runs)") {
		t.Errorf("the default terminal table lacks %q and (2 runs):\n%s", want, narrow.String())
	}
	md := Markdown(c, MarkdownOptions{})
	var html strings.Builder
	if err := HTML(&html, c.Current, c.Baseline, c); err != nil {
		t.Fatal(err)
	}
	// ttft.p95's test pooled over both runs, as compare decided it
	both := "maritz-jarrett pooled over both runs " + fmtP(r.P) + " n=300+300+300; mean of both runs' CIs " + Interval(r)
	page := stdhtml.UnescapeString(html.String())
	for name, out := range map[string]string{"terminal": term.String(), "markdown": md, "html": page} {
		for _, want := range []string{cell, Change(r), both} {
			if !strings.Contains(out, want) {
				t.Errorf("%s lacks %q:\n%s", name, want, tail(out, 3000))
			}
		}
	}
}

// TestWarningsOnceAfterRerun checks a warning the confirming rerun repeats
// (too few samples, about the same run and metric) is printed once in
// every report.
func TestWarningsOnceAfterRerun(t *testing.T) {
	run := func(ttft float64, seed uint64) *results.File {
		return comparetest.File(results.Environment{}, comparetest.RunSpec{Name: "chat", TTFT: ttft, TPOT: 9, E2EL: 2000,
			OutTokPerSec: 1000, ReqPerSec: 4, CV: 0.1, N: 20, Seed: seed})
	}
	cfg := compare.Config{Tolerances: []compare.Tolerance{{Metric: "ttft.p95", Relative: true, Amount: 0.10}}}
	c := compare.Confirm(run(100, 1), run(112, 2), run(100, 3), cfg)
	const w = "run chat, ttft.p95: only 20 baseline and 20 current samples"
	var found error
	for _, e := range c.AllWarnings() { // the rows' warnings and the comparison's
		if strings.HasPrefix(e.Error(), w) { // the first run's, not the rerun's
			found = e
		}
	}
	if found == nil || c.Rows[0].Confirm == nil {
		t.Fatalf("the comparison lacks the warning (confirmed: %v)", c.Rows[0].Confirm != nil)
	}
	// the row carries it once (its deciding test's); the same text about
	// the same run may come from the comparison too, as it did from each
	// run of a rerun
	c.Warnings = append(c.Warnings, found)
	var term, html strings.Builder
	if err := Terminal(&term, c, TerminalOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := HTML(&html, c.Current, c.Baseline, c); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"terminal": term.String(), "markdown": Markdown(c, MarkdownOptions{}), "html": html.String()} {
		// the rerun's own warning ("confirming rerun: " + w) is another
		if got := strings.Count(out, w) - strings.Count(out, "confirming rerun: "+w); got != 1 {
			t.Errorf("%s has the warning %d times, want once", name, got)
		}
	}
}
