package report

import (
	"strings"
	"testing"

	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/results"
)

func specFile(tpot, rate float64) *results.File {
	f := runTableFile()
	s := &f.Runs[0].Summary
	s.TPOT = results.Stats{N: 40, Mean: tpot}
	s.Server = &results.ServerMetrics{SpecDecode: &results.SpecDecode{Drafts: 200, DraftTokens: 600, AcceptedTokens: 600 * rate,
		AcceptanceRate: rate, AcceptanceLength: 1 + 3*rate, AcceptedPerPosition: []float64{160, 120, 80}, PositionRates: []float64{0.8, 0.6, 0.4}}}
	return f
}

// TestRunTableSpecDecode shows the acceptance figures beside TPOT in the
// run table and the Markdown summary, no table for a server that does not
// speculate, and the hint that links a TPOT regression to the acceptance
// rate's fall in the PR markdown.
func TestRunTableSpecDecode(t *testing.T) {
	var b strings.Builder
	if err := RunTable(&b, specFile(6.4, 0.6)); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{"the server's speculative decoding over the measured phase",
		"run   TPOT mean  acceptance rate  acceptance length            by position  drafts  draft tokens  accepted",
		"chat     6.40ms            0.600               2.80  0.800 / 0.600 / 0.400     200           600       360"} {
		if !strings.Contains(got, want) {
			t.Errorf("run table lacks %q:\n%s", want, got)
		}
	}
	b.Reset()
	if err := RunTable(&b, runTableFile()); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "speculative decoding") {
		t.Errorf("a server without speculative decoding has its table:\n%s", b.String())
	}
	m := &mdBuilder{limit: 1 << 16}
	mdSpecDecode(m, specFile(6.4, 0.6))
	if got := m.b.String(); !strings.Contains(got, "| chat | 6.40ms | 0.600 | 2.80 | 0.800 / 0.600 / 0.400 | 200 | 600 | 360 |") {
		t.Errorf("markdown lacks the row:\n%s", got)
	}
	var page strings.Builder
	if err := HTML(&page, specFile(6.4, 0.6), nil, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), "<h3>Speculative decoding</h3>") || !strings.Contains(page.String(), "0.800 / 0.600 / 0.400") {
		t.Errorf("the page lacks the speculative-decoding table")
	}
	m = &mdBuilder{limit: 1 << 16}
	mdHints(m, &compare.Comparison{Current: specFile(8, 0.4), Baseline: specFile(6.4, 0.6)})
	if got := m.b.String(); !strings.Contains(got, "spec") || !strings.Contains(got, "accepted fewer draft tokens") {
		t.Errorf("markdown lacks the hint:\n%s", got)
	}
}

// TestRunTableToolCalls shows a run's tool calls in the run table and the
// Markdown summary, and no table for a workload without tools.
func TestRunTableToolCalls(t *testing.T) {
	f := runTableFile()
	f.Runs[0].Summary.ToolCalls = &results.ToolCalls{Requests: 40, Calls: 44, Unanswered: 2, ValidRate: 0.95, Time: results.Stats{N: 40, P50: 81.5, P95: 120}}
	var b strings.Builder
	if err := RunTable(&b, f); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); !strings.Contains(got, "tool calls (requests that answered") || !strings.Contains(got, "chat        40     44       0.950        81.5ms         120ms        2") {
		t.Errorf("run table lacks the tool calls:\n%s", got)
	}
	m := &mdBuilder{limit: 1 << 16}
	mdToolCalls(m, f)
	if got := m.b.String(); !strings.Contains(got, "| chat | 40 | 44 | 0.950 | 81.5ms | 120ms | 2 |") {
		t.Errorf("markdown lacks the row:\n%s", got)
	}
	b.Reset()
	if err := RunTable(&b, runTableFile()); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "tool calls") {
		t.Errorf("a run without tools has the table:\n%s", b.String())
	}
}
