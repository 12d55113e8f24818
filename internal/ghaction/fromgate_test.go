package ghaction

import (
	"math"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
)

func rng(file string, line int) runspec.Source {
	return runspec.Source{File: file, Start: runspec.Pos{Line: line, Column: 3}, End: runspec.Pos{Line: line, Column: 20}}
}

// metric looks a metric up by name, failing the test when there is none.
func metric(t *testing.T, name string) results.Metric {
	t.Helper()
	m, ok := results.LookupMetric(name)
	if !ok {
		t.Fatalf("no metric %q", name)
	}
	return m
}

func TestGateAnnotations(t *testing.T) {
	s := map[string]runspec.Source{"chat": rng("perf/gate.hcl", 10), "batch": rng("perf/gate.hcl", 30)}
	ttftBand, e2elBand := rng("perf/gate.hcl", 50), rng("perf/gate.hcl", 51)
	c := &compare.Comparison{Rows: []compare.Row{
		// 25% against a 10% band: 0.15 past
		{Run: "chat", Scenario: "chat", Metric: metric(t, "ttft.p95"), Tolerance: compare.Tolerance{Metric: "ttft.p95", Relative: true, Amount: 0.10, Source: ttftBand},
			ChangeEstimate: compare.ChangeEstimate{Baseline: 400, Current: 500, Change: 0.25, Delta: 100, ChangeLo: 0.15, ChangeHi: 0.35, Estimator: compare.HarrellDavisEstimator},
			Evidence:       compare.Evidence{Test: compare.QuantileDifference, P: 0.001, N1: 200, N2: 200},
			Judgement:      compare.Judgement{Verdict: compare.Regression, Reason: "past twice the band"}},
		// +600 ms against +200 ms on a 1000 ms baseline: 0.40 past, the worst
		{Run: "batch", Scenario: "batch", Metric: metric(t, "e2el.p99"), Tolerance: compare.Tolerance{Metric: "e2el.p99", Amount: 200, Source: e2elBand},
			ChangeEstimate: compare.ChangeEstimate{Baseline: 1000, Current: 1600, Change: 0.6, Delta: 600},
			Evidence:       compare.Evidence{P: math.NaN()},
			Judgement:      compare.Judgement{Verdict: compare.Regression}},
		// a metric without a tolerance block of its own (default bands): placed on the scenario
		{Run: "batch", Scenario: "batch", Metric: metric(t, "tpot.p95"), Tolerance: compare.Tolerance{Relative: true, Amount: 0.1},
			ChangeEstimate: compare.ChangeEstimate{Change: 0.3},
			Judgement:      compare.Judgement{Verdict: compare.Regression}},
		// inconclusive: a warning on the tolerance block
		{Run: "chat", Scenario: "chat", Metric: metric(t, "e2el.p99"), Tolerance: compare.Tolerance{Metric: "e2el.p99", Amount: 200, Source: e2elBand},
			ChangeEstimate: compare.ChangeEstimate{Baseline: 1000, Current: 1180, Change: 0.18, Delta: 180, ChangeLo: math.NaN(), ChangeHi: math.NaN()},
			Evidence:       compare.Evidence{Test: compare.MannWhitney, P: 0.2, N1: 200, N2: 200},
			Judgement:      compare.Judgement{Verdict: compare.Inconclusive, Reason: "near the band within run-to-run drift"}},
		// unchanged: no annotation
		{Run: "chat", Scenario: "chat", Metric: metric(t, "ttft.p95"),
			Judgement: compare.Judgement{Verdict: compare.Unchanged}},
	}}
	failed := []compare.FailedAssert{{Run: "chat", Assert: results.AssertResult{Name: "ttft_interactive", Message: "P95 TTFT must stay under 500 ms",
		Values: map[string]float64{"ttft.p95": 612.4}, File: "perf/gate.hcl", Line: 14, Column: 21}}}

	anns := GateAnnotations(c, s, failed)
	if len(anns) != 5 {
		t.Fatalf("got %d annotations, want 3 regressions, 1 inconclusive and 1 assert: %+v", len(anns), anns)
	}
	worst, _ := Worst(anns, MaxAnnotations)
	want := []struct {
		title string
		line  int
	}{
		{"regression: e2el.p99 in batch", 51},
		{"regression: tpot.p95 in batch", 30},
		{"regression: ttft.p95 in chat", 50},
		{"assert ttft_interactive failed in chat", 14},
		{"inconclusive: e2el.p99 in chat", 51},
	}
	for i, w := range want {
		if worst[i].Title != w.title || worst[i].Line != w.line || worst[i].File != "perf/gate.hcl" {
			t.Errorf("annotation %d = %q at %s:%d, want %q at line %d", i, worst[i].Title, worst[i].File, worst[i].Line, w.title, w.line)
		}
	}
	if got := worst[0].Message; got != "e2el.p99 went from 1000ms to 1600ms (+60.0%, summary), past the allowed +200ms." {
		t.Errorf("absolute-band message = %q", got)
	}
	if got := worst[2].Message; !strings.Contains(got, "(+25.0%, harrell-davis)") || !strings.Contains(got, "past the allowed 10%") || !strings.Contains(got, "(CI [+15.0%, +35.0%] maritz-jarrett p=0.001 n=200+200)") || !strings.Contains(got, "past twice the band") {
		t.Errorf("relative-band message = %q", got)
	}
	if got := worst[3].Message; got != "P95 TTFT must stay under 500 ms (ttft.p95 = 612ms)" { // in its unit
		t.Errorf("assert message = %q", got)
	}
	if got := worst[4].Message; got != "e2el.p99 went from 1000ms to 1180ms (+18.0%, summary), against the allowed +200ms (mann-whitney p=0.200 n=200+200): near the band within run-to-run drift." {
		t.Errorf("inconclusive message = %q", got)
	}
}

// TestAnnotationSignHigherIsBetter checks that a higher-is-better metric
// that fell reads as a fall: throughput 1000 → 800/s is -20.0%, as in the
// markdown, not the worse-is-positive +20% compare reasons with.
func TestAnnotationSignHigherIsBetter(t *testing.T) {
	c := &compare.Comparison{Rows: []compare.Row{{Run: "chat", Scenario: "chat", Metric: metric(t, "throughput.output_tokens"),
		Tolerance:      compare.Tolerance{Metric: "throughput.output_tokens", Relative: true, Amount: 0.05},
		ChangeEstimate: compare.ChangeEstimate{Baseline: 1000, Current: 800, Change: 0.2, Delta: 200},
		Evidence:       compare.Evidence{P: math.NaN()},
		Judgement:      compare.Judgement{Verdict: compare.Regression}}}}
	anns := GateAnnotations(c, nil, nil)
	if len(anns) != 1 || !strings.Contains(anns[0].Message, "went from 1000/s to 800/s (-20.0%, summary)") {
		t.Errorf("annotations = %+v, want one reading 1000/s to 800/s (-20.0%%)", anns)
	}
}

func TestDiagnosticAnnotations(t *testing.T) {
	diags := []runspec.Diagnostic{
		{Severity: runspec.Error, Summary: "Unknown metric", Detail: `"ttft.p96" is not a metric; did you mean "ttft.p95"?`, Source: rng("bad.hcl", 7)},
		{Severity: runspec.Warning, Summary: "Unknown simulator profile"},
	}
	anns := DiagnosticAnnotations(diags)
	if len(anns) != 1 || anns[0].Line != 7 || anns[0].Title != "invalid suite: Unknown metric" || anns[0].Kind != SuiteError {
		t.Errorf("got %+v, want the one error at bad.hcl:7", anns)
	}
}
