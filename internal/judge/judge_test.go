package judge

import (
	"errors"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/internal/comparetest"
	"github.com/llmgate/llmgate/results"
)

// TestDecide checks the verdict table: what fails the gate, what only
// stops it from judging, and what merely passes with a caveat.
func TestDecide(t *testing.T) {
	e2el, _ := results.LookupMetric("e2el.p95")
	row := func(v compare.Verdict) compare.Row {
		return compare.Row{Run: "chat", Metric: e2el, Judgement: compare.Judgement{Verdict: v}}
	}
	failed := []compare.FailedAssert{{Run: "chat", Assert: results.AssertResult{Name: "a"}}}
	tests := []struct {
		name     string
		rows     []compare.Row
		failed   []compare.FailedAssert
		runErr   error
		invalid  []string
		failOn   bool
		want     compare.Decision
		problems int
	}{
		// nothing moved
		{name: "pass", rows: []compare.Row{row(compare.Unchanged), row(compare.Improvement)}, want: compare.DecisionPass},
		// no baseline and no failed assert: the asserts alone pass the gate
		{name: "asserts only", want: compare.DecisionPass},
		// a regression fails the gate
		{name: "regression", rows: []compare.Row{row(compare.Regression)}, want: compare.DecisionFail},
		// a failed assert in a judged run fails the gate
		{name: "assert", failed: failed, want: compare.DecisionFail},
		// inconclusive passes, saying so
		{name: "inconclusive", rows: []compare.Row{row(compare.Inconclusive)}, want: compare.DecisionInconclusive},
		// ... unless --fail-on inconclusive
		{name: "inconclusive fails", rows: []compare.Row{row(compare.Inconclusive)}, failOn: true, want: compare.DecisionFail},
		// a target that did not start: the gate could not judge
		{name: "infra", runErr: errors.New("start server.vllm: timeout"), want: compare.DecisionError, problems: 1},
		// an invalid run: could not judge either
		{name: "invalid run", invalid: []string{"chat"}, rows: []compare.Row{row(compare.Invalid)}, want: compare.DecisionError, problems: 1},
		// a run error and an invalid run are two problems
		{name: "two problems", invalid: []string{"chat"}, runErr: errors.New("x"), want: compare.DecisionError, problems: 2},
		// a problem outweighs an inconclusive change
		{name: "error over inconclusive", rows: []compare.Row{row(compare.Inconclusive)}, runErr: errors.New("x"), want: compare.DecisionError, problems: 1},
		// a failure still wins over an infrastructure problem elsewhere
		{name: "fail wins", rows: []compare.Row{row(compare.Regression)}, runErr: errors.New("x"), want: compare.DecisionFail, problems: 1},
		// a failed assert wins over an invalid run elsewhere
		{name: "assert wins", failed: failed, invalid: []string{"other"}, want: compare.DecisionFail, problems: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &compare.Comparison{Rows: tt.rows, FailedAsserts: tt.failed, Config: compare.Config{FailOnInconclusive: tt.failOn}}
			for _, name := range tt.invalid {
				c.NotJudged = append(c.NotJudged, compare.NotJudged{Run: name, Kind: compare.CurrentInvalid, Reason: "current run is invalid"})
			}
			got, problems := decide(c, tt.runErr)
			if got != tt.want || len(problems) != tt.problems {
				t.Errorf("verdict %q with %d problems %v, want %q with %d", got, len(problems), problems, tt.want, tt.problems)
			}
		})
	}
}

// TestGuardedComparison checks that a comparison that panics leaves the
// gate an error verdict with the panic as its problem, not a crash.
func TestGuardedComparison(t *testing.T) {
	cur := &results.File{Version: results.SchemaVersion, Runs: []results.Run{{Name: "chat", Scenario: "chat", Status: results.StatusOK}}}
	c := guarded(cur, compare.DefaultConfig(), func() *compare.Comparison { panic("betainc: a or b too big; failed to converge") })
	v, problems := decide(c, nil)
	if v != compare.DecisionError || len(problems) != 1 || !strings.Contains(problems[0].Error(), "failed to converge") {
		t.Errorf("verdict %q, problems %v; want error with the panic", v, problems)
	}
}

// TestJudgeGuardsEveryComparison makes each comparison Judge makes panic
// (the first comparison, a single-run confirmation, an A/B one): the
// judgement is whole, its verdict error with the panic as its one problem,
// never a crash.
func TestJudgeGuardsEveryComparison(t *testing.T) {
	const msg = "betainc: a or b too big; failed to converge"
	panics := func(_, _ *results.File, _ compare.Config) *compare.Comparison { panic(msg) }
	confirmPanics := func(_, _, _ *results.File, _ compare.Config) *compare.Comparison { panic(msg) }
	abPanics := func(_, _, _, _ *results.File, _ compare.Config) *compare.Comparison { panic(msg) }
	asksRerun := func(base, cur *results.File, cfg compare.Config) *compare.Comparison {
		return &compare.Comparison{Baseline: base, Current: cur, Config: cfg, Rows: []compare.Row{{Run: "chat", Judgement: compare.Judgement{Verdict: compare.Inconclusive, Rerun: true}}}}
	}
	single := func() *results.File {
		return comparetest.File(results.Environment{}, comparetest.RunSpec{Name: "chat", TTFT: 100, Seed: 1})
	}
	side := func(s results.ABSide) *results.File {
		f := single()
		f.AB = &results.AB{Side: s}
		return f
	}
	tests := []struct {
		name string
		in   Input
	}{
		{name: "compare", in: Input{Baseline: single(), Current: single(), comparisons: &comparisons{compare: panics}}},
		{name: "asserts only", in: Input{Current: single(), comparisons: &comparisons{compare: panics}}},
		{name: "confirm", in: Input{Baseline: single(), Current: single(), Rerun: single(), comparisons: &comparisons{compare: asksRerun, confirm: confirmPanics}}},
		{name: "confirm A/B", in: Input{Baseline: side(results.SideBaseline), Current: side(results.SideCandidate),
			RerunBaseline: side(results.SideBaseline), Rerun: side(results.SideCandidate), comparisons: &comparisons{compare: asksRerun, confirmAB: abPanics}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.in.Config = compare.DefaultConfig()
			var j *Judgement
			var err error
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Fatalf("Judge panicked: %v", p)
					}
				}()
				j, err = Judge(tt.in)
			}()
			if err != nil {
				t.Fatal(err)
			}
			if j.Decision != compare.DecisionError || j.Comparison == nil || j.Comparison.Current == nil {
				t.Fatalf("verdict %s, comparison %v; want error with a comparison of the current file", j.Decision, j.Comparison != nil)
			}
			if len(j.Problems) != 1 || !strings.Contains(j.Problems[0].Error(), "internal error while comparing") || !strings.Contains(j.Problems[0].Error(), "failed to converge") {
				t.Errorf("problems %v, want the panic", j.Problems)
			}
		})
	}
}

// TestJudgeRefuses checks what Judge refuses before judging: a baseline
// of other runs (unless allowed, then noted) and an A/B rerun without its
// baseline side.
func TestJudgeRefuses(t *testing.T) {
	base := comparetest.File(results.Environment{}, comparetest.RunSpec{Name: "chat", TTFT: 100, Seed: 1})
	cur := comparetest.File(results.Environment{}, comparetest.RunSpec{Name: "chat", TTFT: 100, Seed: 2})
	base.Runs[0].Load = &results.LoadConfig{Concurrency: 4}
	cur.Runs[0].Load = &results.LoadConfig{Concurrency: 16}
	cfg := compare.DefaultConfig()
	if _, err := Judge(Input{Baseline: base, Current: cur, Config: cfg}); !errors.Is(err, compare.ErrNotComparable) || !strings.Contains(err.Error(), "concurrency") {
		t.Errorf("a baseline at concurrency 4 against 16: %v, want not comparable, naming the concurrency", err)
	}
	j, err := Judge(Input{Baseline: base, Current: cur, Config: cfg, AllowDifferent: true})
	if err != nil || len(j.Notes) != 1 || !strings.Contains(j.Notes[0], "on purpose") {
		t.Errorf("allowed: %v, notes %q; want a judgement noting the difference", err, j.Notes)
	}
	b, c := *base, *cur
	b.Runs, c.Runs = cur.Runs, cur.Runs
	b.AB, c.AB = &results.AB{Side: results.SideBaseline}, &results.AB{Side: results.SideCandidate}
	if _, err := Judge(Input{Baseline: &b, Current: &c, Rerun: &c, Config: cfg}); !errors.Is(err, ErrRerunBaseline) {
		t.Errorf("an A/B rerun without its baseline side: %v, want ErrRerunBaseline", err)
	}
}
