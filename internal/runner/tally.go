package runner

import (
	"fmt"
	"strings"

	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/untrusted"
)

// RunTally counts a results file's asserts and runs by outcome, the way the
// exit code needs them: failed asserts of runs that may be judged, and the
// runs that may not.
type RunTally struct {
	// FailedAsserts are the failed asserts of runs whose numbers may be
	// judged (status ok), in run order.
	FailedAsserts []FailedAssert
	// Unjudged are failed asserts of invalid or partial runs: recorded, but
	// the run's numbers cannot be trusted, so they do not fail the gate.
	Unjudged []FailedAssert
	// Invalid are the invalid runs, each with its own reasons.
	Invalid []InvalidRun
	// Partial and Failed name the runs with those statuses.
	Partial, Failed []string
	// Asserts and Passed count every assert of judged runs and those that held.
	Asserts, Passed int
}

// InvalidRun is one run that may not be judged, with why (its
// results.Run.InvalidReasons).
type InvalidRun struct {
	Name    string
	Reasons []string
}

// FailedAssert is one assert that did not hold, with the run it failed in:
// the same type as compare's, so that the gate hands either list on as is.
type FailedAssert = compare.FailedAssert

// TallyRuns reads the tally out of f: which asserts failed in runs that may
// be judged, and which runs could not be judged.
func TallyRuns(f *results.File) RunTally {
	var v RunTally
	if f == nil {
		return v
	}
	for i := range f.Runs {
		run := &f.Runs[i]
		switch run.Status {
		case results.StatusInvalid:
			v.Invalid = append(v.Invalid, InvalidRun{Name: run.Name, Reasons: run.InvalidReasons})
		case results.StatusPartial:
			v.Partial = append(v.Partial, run.Name)
		case results.StatusFailed:
			v.Failed = append(v.Failed, run.Name)
		}
		for _, a := range run.Asserts {
			if run.Valid() {
				v.Asserts++
			}
			if a.Passed {
				if run.Valid() {
					v.Passed++
				}
				continue
			}
			fa := FailedAssert{Run: run.Name, Assert: a}
			if run.Valid() {
				v.FailedAsserts = append(v.FailedAsserts, fa)
			} else {
				v.Unjudged = append(v.Unjudged, fa)
			}
		}
	}
	return v
}

// GateFailed reports whether an assert failed in a run that may be judged.
func (v RunTally) GateFailed() bool { return len(v.FailedAsserts) > 0 }

// Problems are why the runs could not all be judged: runErr (a target that
// did not start, an interruption), when not nil, then each invalid run with
// its own reasons.
func (v RunTally) Problems(runErr error) []error {
	var problems []error
	if runErr != nil {
		problems = append(problems, runErr)
	}
	for _, r := range v.Invalid {
		why := "its self-checks failed"
		if len(r.Reasons) > 0 {
			why = strings.Join(r.Reasons, "; ")
		}
		problems = append(problems, fmt.Errorf("run %s is invalid, so the server was not judged: %s", r.Name, untrusted.Line(why)))
	}
	return problems
}

// UnjudgedNote says how many asserts failed in runs that cannot be judged;
// "" when none did.
func (v RunTally) UnjudgedNote() string {
	if len(v.Unjudged) == 0 {
		return ""
	}
	return fmt.Sprintf("%d assert(s) failed in runs that cannot be judged (invalid or partial); they do not fail the gate", len(v.Unjudged))
}
