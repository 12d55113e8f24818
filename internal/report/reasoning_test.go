package report

import (
	"strings"
	"testing"

	"github.com/llmgate/llmgate/results"
)

func reasoningFile() *results.File {
	f := runTableFile()
	s := &f.Runs[0].Summary
	s.TTFO = results.Stats{N: 9, P50: 910, P95: 1240}
	s.Reasoning = &results.Reasoning{Requests: 10, Counted: 10, Unanswered: 1,
		Tokens: results.Stats{N: 10, Mean: 412, P95: 730}, AnswerTokens: results.Stats{N: 10, Mean: 88}}
	return f
}

// TestRunTableReasoning shows TTFT beside TTFO and the reasoning and answer
// tokens of a reasoning run, the counted ones as lower bounds; a run that
// did not reason adds nothing.
func TestRunTableReasoning(t *testing.T) {
	var b strings.Builder
	if err := RunTable(&b, reasoningFile()); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	ttft := fmtMs(runTableFile().Runs[0].Summary.TTFT.P50)
	for _, want := range []string{"reasoning (TTFT: first token, TTFO: first answer token",
		"TTFT p50  TTFO p50  TTFO p95  reasoning tok   p95  answer tok  unanswered",
		ttft + "     910ms    1240ms           ≥412  ≥730        88.0           1"} {
		if !strings.Contains(got, want) {
			t.Errorf("run table lacks %q:\n%s", want, got)
		}
	}
	b.Reset()
	if err := RunTable(&b, runTableFile()); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "TTFO") {
		t.Errorf("a run that did not reason has a reasoning table:\n%s", b.String())
	}
	m := &mdBuilder{limit: 1 << 16}
	mdReasoning(m, reasoningFile())
	if got := m.b.String(); !strings.Contains(got, "| chat | "+ttft+" | 910ms | 1240ms | ≥412 | ≥730 | 88.0 | 1 |") {
		t.Errorf("markdown lacks the reasoning row:\n%s", got)
	}
}
