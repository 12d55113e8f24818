package diagnose_test

import (
	"context"
	"testing"
	"time"

	"github.com/llmgate/llmgate/internal/diagnose"
	"github.com/llmgate/llmgate/internal/runner"
	"github.com/llmgate/llmgate/internal/suite"
	"github.com/llmgate/llmgate/results"
)

// TestSpecDecodeFellOnSimulator runs the same scenario on a simulator
// whose drafts are accepted at 0.8 (the baseline) and at 0.3: TPOT rises
// as the acceptance rate falls, and the hint fires naming both.
func TestSpecDecodeFellOnSimulator(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the simulator twice")
	}
	run := func(rate string) *results.File {
		s, diags := suite.Load("testdata/specdecode.hcl", suite.Options{Vars: map[string]string{"rate": rate}, Getenv: func(string) string { return "" }})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		f, err := runner.Run(ctx, s.Runnable(), runner.Options{})
		if err != nil {
			t.Fatalf("run: %v", err)
		}
		return f
	}
	base, cur := run("0.8"), run("0.3")
	b, c := &base.Runs[0].Summary, &cur.Runs[0].Summary
	if b.Server == nil || c.Server == nil || b.Server.SpecDecode == nil || c.Server.SpecDecode == nil {
		t.Fatalf("no speculative decoding measured: %+v, %+v", b.Server, c.Server)
	}
	t.Logf("baseline: rate %.3f, length %.2f, TPOT mean %.2f ms; current: rate %.3f, length %.2f, TPOT mean %.2f ms",
		b.Server.SpecDecode.AcceptanceRate, b.Server.SpecDecode.AcceptanceLength, b.TPOT.Mean,
		c.Server.SpecDecode.AcceptanceRate, c.Server.SpecDecode.AcceptanceLength, c.TPOT.Mean)
	var fired *diagnose.Hint
	hints := diagnose.FileAgainst(cur, base)
	for i := range hints {
		if hints[i].Kind == diagnose.SpecDecodeFell {
			fired = &hints[i]
		}
	}
	if fired == nil {
		t.Fatalf("no %s hint: %+v", diagnose.SpecDecodeFell, hints)
	}
	if ch := diagnose.Changes(*fired, &base.Runs[0]); len(ch) < 2 {
		t.Errorf("changes %+v: want TPOT and the acceptance rate", ch)
	}
	// the baseline against itself: nothing moved
	for _, h := range diagnose.FileAgainst(base, base) {
		if h.Kind == diagnose.SpecDecodeFell {
			t.Errorf("the baseline against itself: %+v", h)
		}
	}
}
