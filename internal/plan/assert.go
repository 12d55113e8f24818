package plan

import (
	"fmt"
	"maps"

	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/untrusted"
)

// Assert is an assert block compiled for one run: a condition over the
// metric namespace and the suite's values, which Check judges a summary
// against. The suite's values it names (var.*, sweep.*) were read when the
// suite loaded, and Judge was made then: it evaluates the condition over a
// summary's metrics inside package suite, so what calls it links no HCL.
type Assert struct {
	Name         string
	ErrorMessage string
	// Source is the condition's source text, e.g. "ttft.p95 < 500".
	Source string

	// Given are the suite's values the condition names and GivenUnits the
	// unit of each compared with a metric; nil when it names none.
	Given      map[string]float64
	GivenUnits map[string]results.Unit
	// Judge judges a summary by the condition (nil for an Assert not
	// loaded from a suite). It reads the assert's Name, Source and
	// ErrorMessage when it runs.
	Judge func(*results.Summary) results.AssertResult
}

// EvalAsserts judges sum against the run's asserts, in file order. Each
// result names the file and line of the condition, its source text and the
// values it saw; a metric the run did not produce (server metrics from a
// server without /metrics) fails its assert with a message saying so.
func (r *Run) EvalAsserts(sum *results.Summary) []results.AssertResult {
	if len(r.Asserts) == 0 {
		return nil
	}
	if r.ResetBudget != nil {
		r.ResetBudget() // each evaluation of a run's asserts gets the whole budget
	}
	out := make([]results.AssertResult, 0, len(r.Asserts))
	for _, a := range r.Asserts {
		out = append(out, a.Check(sum))
	}
	return out
}

// Check judges sum against the assert's condition, as the suite compiled it
// for its run; an Assert not loaded from a suite fails, saying so.
func (a *Assert) Check(sum *results.Summary) results.AssertResult {
	if a.Judge == nil {
		return results.AssertResult{Name: a.Name, Condition: untrusted.String(a.Source),
			Message: untrusted.String(fmt.Sprintf("assert %q was not loaded from a suite, so it has no condition to check", a.Name))}
	}
	return a.Judge(sum)
}

// SLOValues are the suite's values the run's capacity SLO names
// (var.ttft_ms = 500), as every probe is judged with them, and the unit of
// each that is compared with a metric; nil when it names none.
func (r *Run) SLOValues() (map[string]float64, map[string]results.Unit) {
	if r.Capacity == nil || r.Capacity.SLO == nil {
		return nil, nil
	}
	return maps.Clone(r.Capacity.SLO.Given), maps.Clone(r.Capacity.SLO.GivenUnits) // the caller's to keep
}

// EvalSLO judges sum against the run's capacity SLO, as an assert named "slo".
func (r *Run) EvalSLO(sum *results.Summary) results.AssertResult {
	return r.Capacity.SLO.Check(sum)
}
