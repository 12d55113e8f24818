package ghaction

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/internal/report"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
)

// GateAnnotations turns a gate's outcome into annotations: one per
// regression and per inconclusive row of c, placed on the suite's tolerance
// block for its metric (else on the scenario's block, which scenarios
// holds by name: suite.ScenarioSources), ranked by how far past the band it
// went; and one per failed assert, placed on its condition. scenarios may
// be nil; failed lists the asserts that fail the gate (those of runs that
// may be judged).
func GateAnnotations(c *compare.Comparison, scenarios map[string]runspec.Source, failed []compare.FailedAssert) []Annotation {
	var anns []Annotation
	if c != nil {
		for i := range c.Rows {
			r := &c.Rows[i]
			var an Annotation
			switch r.Verdict {
			case compare.Regression:
				an = Annotation{Kind: Regression, Title: fmt.Sprintf("regression: %s in %s", r.Metric.Name, r.Run)}
			case compare.Inconclusive:
				an = Annotation{Kind: Inconclusive, Title: fmt.Sprintf("inconclusive: %s in %s", r.Metric.Name, r.Run)}
			default:
				continue
			}
			an.Message, an.Severity = regressionMessage(r), pastBand(r)
			if c.InOneJob() {
				an.Title += " " + report.ABPhrase
			}
			if src := regressionSource(scenarios, r); !src.IsZero() {
				an.File, an.Line, an.Column = src.File, src.Start.Line, src.Start.Column
			}
			anns = append(anns, an)
		}
	}
	for _, fa := range failed {
		a := fa.Assert
		anns = append(anns, Annotation{
			Kind:    FailedAssert,
			File:    a.File,
			Line:    a.Line,
			Column:  a.Column,
			Title:   fmt.Sprintf("assert %s failed in %s", a.Name, fa.Run),
			Message: AssertText(a),
		})
	}
	return anns
}

// DiagnosticAnnotations turns suite diagnostics (suite.PlainDiagnostics)
// into annotations at their sources, errors only: a suite that does not
// load fails the step.
func DiagnosticAnnotations(diags []runspec.Diagnostic) []Annotation {
	var anns []Annotation
	for _, d := range diags {
		if d.Severity != runspec.Error {
			continue
		}
		an := Annotation{Kind: SuiteError, Title: "invalid suite: " + d.Summary, Message: d.Detail}
		if an.Message == "" {
			an.Message = d.Summary
		}
		if !d.Source.IsZero() {
			an.File, an.Line, an.Column = d.Source.File, d.Source.Start.Line, d.Source.Start.Column
		}
		anns = append(anns, an)
	}
	return anns
}

// pastBand is how far r went past its band, as a fraction of the baseline
// value, so that bands in % and in the metric's unit rank on one scale.
func pastBand(r *compare.Row) float64 {
	t := r.Tolerance
	if t.Relative {
		return finiteOr(r.Change-t.Amount, 0)
	}
	over := r.Delta - t.Amount
	if b := math.Abs(r.Baseline); b > 0 && !math.IsNaN(b) && !math.IsInf(b, 0) {
		return finiteOr(over/b, 0)
	}
	return finiteOr(over, 0)
}

func finiteOr(v, def float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return def
	}
	return v
}

// regressionSource is where to annotate r: the tolerance block that set
// its band, which the row carries, else the scenario's header; zero when
// neither is known.
func regressionSource(scenarios map[string]runspec.Source, r *compare.Row) runspec.Source {
	if src := r.Tolerance.Source; !src.IsZero() {
		return src
	}
	return scenarios[r.Scenario]
}

// regressionMessage says what moved, by how much, against which band, in
// the words and numbers of the reports (report.Value, report.Change,
// report.Band): throughput falling from 1000 to 800/s reads -20.0%.
func regressionMessage(r *compare.Row) string {
	var b strings.Builder
	rel := "past"
	if r.Verdict != compare.Regression {
		rel = "against"
	}
	u := r.Metric.Unit
	fmt.Fprintf(&b, "%s went from %s to %s (%s, %s), %s the allowed %s",
		r.Metric.Name, report.Value(r.Baseline, u), report.Value(report.Current(r), u), report.Change(r), r.Estimator, rel, report.Band(r.Tolerance, u))
	if r.Tested() {
		fmt.Fprintf(&b, " (%s)", report.Evidence(r))
	}
	if r.Reason != "" {
		fmt.Fprintf(&b, ": %s", r.Reason)
	}
	b.WriteString(".")
	return b.String()
}

// AssertText is a failed assert's message followed by the values it saw,
// in their units (results.FormatValue), e.g. "P95 TTFT must stay under
// 500 ms (ttft.p95 = 612ms)".
func AssertText(a results.AssertResult) string {
	msg := a.Message.Line() // the suite's words: an annotation is one line
	if msg == "" {
		msg = a.Condition.Line()
	}
	var vals []string
	for _, name := range slices.Sorted(maps.Keys(a.Values)) {
		if strings.Contains(msg, name+" = ") {
			continue // the message already says it
		}
		vals = append(vals, name+" = "+results.FormatValue(name, a.Values[name], a.Units))
	}
	if len(vals) > 0 {
		msg += " (" + strings.Join(vals, ", ") + ")"
	}
	return msg
}
