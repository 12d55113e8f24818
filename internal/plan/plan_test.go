package plan

import (
	"strings"
	"testing"

	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
)

// TestSuitePlanGroups builds a suite by hand, as plain data: runs that share
// a target and server args share a group, in order of their first run, and
// keep file order within it.
func TestSuitePlanGroups(t *testing.T) {
	a := &Target{Target: runspec.Target{Kind: runspec.KindSimulator, Name: "a"}}
	b := &Target{Target: runspec.Target{Kind: runspec.KindSimulator, Name: "b"}}
	s := &Suite{Runs: []*Run{
		{Name: "one", Target: a},
		{Name: "two", Target: b},
		{Name: "three", Target: a},
		{Name: "four", Target: a, ServerArgs: []string{"--x"}},
	}}
	var got []string
	for _, g := range s.Plan().Groups {
		var names []string
		for _, r := range g.Runs {
			names = append(names, r.Name)
		}
		got = append(got, g.Target.Name+":"+strings.Join(names, ","))
	}
	if want := "a:one,three b:two a:four"; strings.Join(got, " ") != want {
		t.Errorf("groups %q, want %q", strings.Join(got, " "), want)
	}
}

// TestEvalAssertsJudges runs the compiled Judge of each assert, in order,
// after one ResetBudget; an Assert with no Judge fails, saying why.
func TestEvalAssertsJudges(t *testing.T) {
	resets := 0
	var order []string
	judge := func(name string, pass bool) func(*results.Summary) results.AssertResult {
		return func(sum *results.Summary) results.AssertResult {
			order = append(order, name)
			return results.AssertResult{Name: name, Passed: pass && sum.ErrorRate == 0}
		}
	}
	r := &Run{
		Asserts: []*Assert{
			{Name: "first", Judge: judge("first", true)},
			{Name: "second", Judge: judge("second", false)},
			{Name: "bare", Source: "ttft.p95 < 500"},
		},
		ResetBudget: func() { resets++ },
	}
	got := r.EvalAsserts(&results.Summary{})
	if resets != 1 || strings.Join(order, ",") != "first,second" {
		t.Errorf("resets %d, judged %v; want one reset, then first and second", resets, order)
	}
	if len(got) != 3 || !got[0].Passed || got[1].Passed || got[2].Passed {
		t.Fatalf("results %+v", got)
	}
	if !strings.Contains(got[2].Message.Raw(), "not loaded from a suite") || got[2].Condition != "ttft.p95 < 500" {
		t.Errorf("bare assert: %+v", got[2])
	}
	if (&Run{ResetBudget: func() { resets++ }}).EvalAsserts(nil) != nil || resets != 1 {
		t.Errorf("a run without asserts judged something or reset its budget (resets %d)", resets)
	}
}

// TestABModeFor: the gate's ab wins over the defaults', a server container
// alternates by default, and endpoints and simulators stay together.
func TestABModeFor(t *testing.T) {
	for _, c := range []struct {
		name string
		s    Suite
		kind runspec.TargetKind
		want ABMode
	}{
		{"server default", Suite{}, runspec.KindServer, ABAlternate},
		{"defaults", Suite{AB: ABCrossover}, runspec.KindServer, ABCrossover},
		{"gate wins", Suite{AB: ABCrossover, Gate: &Gate{AB: ABTogether}}, runspec.KindServer, ABTogether},
		{"simulator", Suite{AB: ABCrossover}, runspec.KindSimulator, ABTogether},
	} {
		if got := c.s.ABModeFor(c.kind); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

// TestProbeRun sets the searched knob, keeps at least MinRequestsPerUser
// requests a user and names the probe after its load.
func TestProbeRun(t *testing.T) {
	r := &Run{Name: "search", Load: runspec.Load{Requests: 10}, Capacity: &Capacity{Vary: results.VaryConcurrency}}
	p := r.ProbeRun(8)
	if p.Name != "search[concurrency=8]" || p.Load.Concurrency != 8 || p.Load.Requests != 16 || p.Capacity != nil || r.Capacity == nil {
		t.Errorf("probe %+v", p)
	}
	rate := (&Run{Name: "s", Capacity: &Capacity{Vary: results.VaryRate}}).ProbeRun(2.5)
	if rate.Name != "s[rate=2.5]" || rate.Load.Rate != 2.5 {
		t.Errorf("rate probe %+v", rate)
	}
}
