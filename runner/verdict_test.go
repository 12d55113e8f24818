package runner

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/llmgate/llmgate/results"
)

// TestJudge checks which failed asserts fail the gate.
func TestJudge(t *testing.T) {
	pass := results.AssertResult{Name: "p", Passed: true}
	fail := results.AssertResult{Name: "f", Passed: false, Message: "too slow"}
	tests := []struct {
		name       string
		runs       []results.Run
		gateFailed bool
		want       Verdict
	}{
		// Every assert held in ok runs: the gate passes.
		{name: "all pass", runs: []results.Run{{Name: "a", Status: "ok", Asserts: []results.AssertResult{pass, pass}}},
			want: Verdict{Asserts: 2, Passed: 2}},
		// A failed assert in an ok run fails the gate.
		{name: "ok run fails", gateFailed: true,
			runs: []results.Run{{Name: "a", Status: "ok", Asserts: []results.AssertResult{pass, fail}}},
			want: Verdict{Asserts: 2, Passed: 1, FailedAsserts: []FailedAssert{{Run: "a", Assert: fail}}}},
		// An invalid run's failed assert is recorded but not judged.
		{name: "invalid run not judged",
			runs: []results.Run{{Name: "a", Status: "invalid", Asserts: []results.AssertResult{fail}}},
			want: Verdict{Invalid: []string{"a"}, Unjudged: []FailedAssert{{Run: "a", Assert: fail}}}},
		// Partial and failed runs are named; failed runs have no asserts.
		{name: "partial and failed",
			runs: []results.Run{{Name: "a", Status: "partial", Asserts: []results.AssertResult{pass}}, {Name: "b", Status: "failed"}},
			want: Verdict{Partial: []string{"a"}, Failed: []string{"b"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Judge(&results.File{Runs: tt.runs})
			if diff := cmp.Diff(tt.want, v); diff != "" {
				t.Errorf("Judge (-want +got):\n%s", diff)
			}
			if v.GateFailed() != tt.gateFailed {
				t.Errorf("GateFailed = %v, want %v", v.GateFailed(), tt.gateFailed)
			}
		})
	}
	if v := Judge(nil); v.GateFailed() {
		t.Error("Judge(nil) failed the gate")
	}
}
