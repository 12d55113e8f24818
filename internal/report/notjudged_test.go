package report

import (
	"errors"
	"testing"

	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/internal/comparetest"
	"github.com/llmgate/llmgate/results"
)

// TestNotJudgedPhrase checks the headline's phrase names what was not
// judged, by side and status.
func TestNotJudgedPhrase(t *testing.T) {
	env := results.Environment{}
	run := func(name string, status results.Status) comparetest.RunSpec {
		return comparetest.RunSpec{Name: name, TTFT: 100, TPOT: 9, E2EL: 2000, Status: status}
	}
	base := comparetest.File(env, run("a", ""), run("b", ""), run("c", ""), run("d", results.StatusInvalid))
	cur := comparetest.File(env, run("a", results.StatusFailed), run("b", results.StatusFailed), run("c", results.StatusInvalid), run("d", ""))
	cur.Partial = true
	got := notJudgedPhrase(compare.Compare(base, cur, compare.DefaultConfig()))
	if want := "2 current runs failed, 1 invalid, 1 baseline run invalid, current results cut short"; got != want {
		t.Errorf("notJudgedPhrase = %q, want %q", got, want)
	}
}

// TestNotJudgedPhraseProblem checks that a run's error, which says why the
// results were cut short, stands instead of "cut short", with the runs
// that never ran counted.
func TestNotJudgedPhraseProblem(t *testing.T) {
	env := results.Environment{}
	spec := comparetest.RunSpec{Name: "a", TTFT: 100, TPOT: 9, E2EL: 2000}
	other := spec
	other.Name = "b"
	cur := comparetest.File(env, spec)
	cur.Partial = true
	c := compare.Compare(comparetest.File(env, spec, other), cur, compare.DefaultConfig())
	c.AddProblem(errors.New("interrupted during a: context canceled\nmore detail"))
	if got, want := notJudgedPhrase(c), "interrupted during a: context canceled, 1 run never ran"; got != want {
		t.Errorf("notJudgedPhrase = %q, want %q", got, want)
	}
}
