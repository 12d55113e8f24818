package report

import (
	"testing"

	"github.com/llmgate/llmgate/compare"
	"github.com/llmgate/llmgate/compare/comparetest"
	"github.com/llmgate/llmgate/results"
)

// TestNotJudgedPhrase checks the headline's phrase names what was not
// judged, by side and status.
func TestNotJudgedPhrase(t *testing.T) {
	env := results.Environment{}
	run := func(name, status string) comparetest.RunSpec {
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
