package runner

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/llmgate/llmgate/results"
)

// TestTallyRuns checks which failed asserts fail the gate.
func TestTallyRuns(t *testing.T) {
	pass := results.AssertResult{Name: "p", Passed: true}
	fail := results.AssertResult{Name: "f", Passed: false, Message: "too slow"}
	tests := []struct {
		name       string
		runs       []results.Run
		gateFailed bool
		want       RunTally
	}{
		// Every assert held in ok runs: the gate passes.
		{name: "all pass", runs: []results.Run{{Name: "a", Status: results.StatusOK, Asserts: []results.AssertResult{pass, pass}}},
			want: RunTally{Asserts: 2, Passed: 2}},
		// A failed assert in an ok run fails the gate.
		{name: "ok run fails", gateFailed: true,
			runs: []results.Run{{Name: "a", Status: results.StatusOK, Asserts: []results.AssertResult{pass, fail}}},
			want: RunTally{Asserts: 2, Passed: 1, FailedAsserts: []FailedAssert{{Run: "a", Assert: fail}}}},
		// An invalid run's failed assert is recorded but not judged.
		{name: "invalid run not judged",
			runs: []results.Run{{Name: "a", Status: results.StatusInvalid, InvalidReasons: []string{"lag"}, Asserts: []results.AssertResult{fail}}},
			want: RunTally{Invalid: []InvalidRun{{Name: "a", Reasons: []string{"lag"}}}, Unjudged: []FailedAssert{{Run: "a", Assert: fail}}}},
		// Partial and failed runs are named; failed runs have no asserts.
		{name: "partial and failed",
			runs: []results.Run{{Name: "a", Status: results.StatusPartial, Asserts: []results.AssertResult{pass}}, {Name: "b", Status: results.StatusFailed}},
			want: RunTally{Partial: []string{"a"}, Failed: []string{"b"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := TallyRuns(&results.File{Runs: tt.runs})
			if diff := cmp.Diff(tt.want, v); diff != "" {
				t.Errorf("TallyRuns (-want +got):\n%s", diff)
			}
			if v.GateFailed() != tt.gateFailed {
				t.Errorf("GateFailed = %v, want %v", v.GateFailed(), tt.gateFailed)
			}
		})
	}
	if v := TallyRuns(nil); v.GateFailed() {
		t.Error("TallyRuns(nil) failed the gate")
	}
}

// TestVerdictProblems checks what stops runs from being judged, and the
// note about asserts that failed in them.
func TestVerdictProblems(t *testing.T) {
	fail := results.AssertResult{Name: "f", Passed: false}
	tests := []struct {
		name     string
		v        RunTally
		runErr   error
		problems []string
		note     string
	}{
		// nothing in the way
		{name: "none"},
		// the run's error comes first
		{name: "run error", runErr: errors.New("start simulator.sim: boom"), problems: []string{"start simulator.sim: boom"}},
		// invalid runs are named, after the run's error
		{name: "invalid", v: RunTally{Invalid: []InvalidRun{{Name: "a", Reasons: []string{"mean answer length 51.0 tokens is -60.2% off the requested 128", "lag"}}, {Name: "b"}}}, runErr: errors.New("x"),
			problems: []string{"x", "run a is invalid, so the server was not judged: mean answer length 51.0 tokens is -60.2% off the requested 128; lag",
				"run b is invalid, so the server was not judged: its self-checks failed"}},
		// unjudged failed asserts are counted in the note
		{name: "unjudged", v: RunTally{Unjudged: []FailedAssert{{Run: "a", Assert: fail}}},
			note: "1 assert(s) failed in runs that cannot be judged (invalid or partial); they do not fail the gate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, p := range tt.v.Problems(tt.runErr) {
				got = append(got, p.Error())
			}
			if diff := cmp.Diff(tt.problems, got); diff != "" {
				t.Errorf("Problems (-want +got):\n%s", diff)
			}
			if n := tt.v.UnjudgedNote(); n != tt.note {
				t.Errorf("UnjudgedNote = %q, want %q", n, tt.note)
			}
		})
	}
}
