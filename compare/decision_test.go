package compare

import (
	"errors"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/compare/comparetest"
	"github.com/llmgate/llmgate/results"
)

// TestDecide checks that nothing judged is never a pass: invalid or partial
// current runs make an error, a baseline run the current file lacks fails
// unless narrowed with Only, and without a baseline an invalid run is
// still an error.
func TestDecide(t *testing.T) {
	env := results.Environment{Model: "m"}
	run := func(name string, seed uint64) comparetest.RunSpec {
		return comparetest.RunSpec{Name: name, TTFT: 100, TPOT: 9, E2EL: 2000, OutTokPerSec: 1000, ReqPerSec: 4, CV: 0.1, Seed: seed}
	}
	bad := func(s comparetest.RunSpec, status string) comparetest.RunSpec { s.Status = status; return s }
	twoRuns := comparetest.File(env, run("chat", 1), run("batch", 2))
	tests := []struct {
		name      string
		base, cur *results.File
		only      []string
		partial   bool
		problem   error
		want      Decision
		missing   int
		skipped   int
	}{
		{name: "all judged", base: twoRuns, cur: comparetest.File(env, run("chat", 3), run("batch", 4)), want: DecisionPass},
		{name: "invalid current run", base: twoRuns, cur: comparetest.File(env, run("chat", 3), bad(run("batch", 4), results.StatusInvalid)), want: DecisionError},
		{name: "failed current run", base: twoRuns, cur: comparetest.File(env, run("chat", 3), bad(run("batch", 4), results.StatusFailed)), want: DecisionError},
		{name: "partial file, a run never ran", base: twoRuns, cur: comparetest.File(env, run("chat", 3)), partial: true, want: DecisionError, missing: 1},
		{name: "missing run fails", base: twoRuns, cur: comparetest.File(env, run("chat", 3)), want: DecisionFail, missing: 1},
		{name: "narrowed on purpose", base: twoRuns, cur: comparetest.File(env, run("chat", 3)), only: []string{"ch*"}, want: DecisionPass, skipped: 1},
		{name: "invalid baseline run", base: comparetest.File(env, run("chat", 1), bad(run("batch", 2), results.StatusInvalid)),
			cur: comparetest.File(env, run("chat", 3), run("batch", 4)), want: DecisionError},
		{name: "no baseline, invalid run", cur: comparetest.File(env, bad(run("chat", 3), results.StatusInvalid)), want: DecisionError},
		{name: "no baseline, all valid", cur: comparetest.File(env, run("chat", 3)), want: DecisionPass},
		{name: "problem outside the files", base: twoRuns, cur: comparetest.File(env, run("chat", 3), run("batch", 4)),
			problem: errors.New("start server.vllm: timeout"), want: DecisionError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cur.Partial = tt.partial
			cfg := DefaultConfig()
			cfg.Only = tt.only
			c := Compare(tt.base, tt.cur, cfg)
			if tt.problem != nil {
				c.AddProblem(tt.problem)
			}
			if got := c.Decide(); got != tt.want {
				t.Errorf("Decide() = %q, want %q (not judged: %+v)", got, tt.want, c.NotJudged)
			}
			if got := len(c.MissingRuns()); got != tt.missing && !tt.partial {
				t.Errorf("%d missing runs %v, want %d", got, c.MissingRuns(), tt.missing)
			}
			if got := len(c.SkippedRuns()); got != tt.skipped {
				t.Errorf("%d skipped runs, want %d", got, tt.skipped)
			}
			if (c.Decide() == DecisionError) != (len(c.NotJudged)+len(c.RunsNeverRan()) > 0) {
				t.Errorf("decision %q but not judged %+v, never ran %v", c.Decide(), c.NotJudged, c.RunsNeverRan())
			}
		})
	}
}

// TestCheckComparable checks that a baseline of another suite, or with a
// run of the same name but another scenario or other sweep values, is
// refused, and that runs on one side only are left to Compare.
func TestCheckComparable(t *testing.T) {
	env := results.Environment{}
	spec := comparetest.RunSpec{Name: "sweep[rate=4]", Scenario: "sweep", Params: map[string]string{"rate": "4"}, TTFT: 100, TPOT: 9, E2EL: 2000}
	base := comparetest.File(env, spec)
	tests := []struct {
		name string
		edit func(*results.File)
		want string // "" for comparable
	}{
		{name: "same plan", edit: func(*results.File) {}},
		{name: "extra run", edit: func(f *results.File) { r := f.Runs[0]; r.Name = "other"; f.Runs = append(f.Runs, r) }},
		{name: "another suite", edit: func(f *results.File) { f.Suite.Name = "other" }, want: `suite "fixture", the current results of suite "other"`},
		{name: "another scenario", edit: func(f *results.File) { f.Runs[0].Scenario = "chat" }, want: `scenario "sweep" in the baseline, "chat" now`},
		{name: "other load", edit: func(f *results.File) { f.Runs[0].Params = map[string]string{"rate": "8"} }, want: "sweep values rate=4 in the baseline, rate=8 now"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cur := comparetest.File(env, spec)
			tt.edit(cur)
			err := CheckComparable(base, cur)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("CheckComparable: %v, want nil", err)
			case tt.want != "" && (err == nil || !errors.Is(err, ErrNotComparable) || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("CheckComparable = %v, want ErrNotComparable with %q", err, tt.want)
			}
		})
	}
}
