package report

import (
	"strings"
	"testing"

	"github.com/llmgate/llmgate/results"
)

func turnsFile() *results.File {
	f := runTableFile()
	f.Runs[0].Summary.Turns = &results.Turns{
		First: results.Slice{Label: "turn 1", Requests: results.Requests{Completed: 10}, InputTokensMean: 512,
			TTFT: results.Stats{N: 10, P50: 240, P95: 310}, E2EL: results.Stats{N: 10, P95: 2400}},
		Later: results.Slice{Label: "turns 2+", Requests: results.Requests{Completed: 19, Failed: 1}, InputTokensMean: 1800,
			TTFT: results.Stats{N: 19, P50: 60, P95: 95}, E2EL: results.Stats{N: 19, P95: 2100}},
	}
	return f
}

func TestRunTableByTurn(t *testing.T) {
	var b strings.Builder
	if err := RunTable(&b, turnsFile()); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{
		"by turn and input length:",
		"chat  turn 1    10       0     512     240ms     310ms    2400ms",
		"chat  turns 2+  19       1    1800    60.0ms    95.0ms    2100ms",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("run table lacks %q:\n%s", want, got)
		}
	}
	// runs without conversations add nothing
	b.Reset()
	if err := RunTable(&b, runTableFile()); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "by turn and input length") {
		t.Errorf("by-turn table for runs without conversations:\n%s", b.String())
	}
}

func TestMarkdownByTurn(t *testing.T) {
	m := &mdBuilder{limit: 1 << 16}
	mdSlices(m, turnsFile())
	got := m.b.String()
	for _, want := range []string{
		"**By turn and input length**",
		"| run | slice | ok | failed | in tok | TTFT p50 | TTFT p95 | E2EL p95 |",
		"| chat | turns 2+ | 19 | 1 | 1800 | 60.0ms | 95.0ms | 2100ms |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("markdown lacks %q:\n%s", want, got)
		}
	}
}
