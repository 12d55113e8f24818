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

// TestSlicesNameBuckets shows a bucket by the name its metrics use and its
// lengths, in the terminal and (escaped) in Markdown.
func TestSlicesNameBuckets(t *testing.T) {
	f := runTableFile()
	f.Runs[0].Summary.LengthBuckets = []results.Slice{
		{Name: "short", Label: "< 512 tok", MaxInputTokens: 512, Requests: results.Requests{Completed: 12}, InputTokensMean: 300,
			TTFT: results.Stats{N: 12, P50: 40, P95: 55}, E2EL: results.Stats{N: 12, P95: 900}},
		{Name: "long", Label: "≥ 512 tok", MinInputTokens: 512, Requests: results.Requests{Completed: 8}, InputTokensMean: 1500,
			TTFT: results.Stats{N: 8, P50: 120, P95: 160}, E2EL: results.Stats{N: 8, P95: 1300}},
	}
	var b strings.Builder
	if err := RunTable(&b, f); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); !strings.Contains(got, "chat  long ≥ 512 tok") || !strings.Contains(got, "chat  short < 512 tok") {
		t.Errorf("run table does not name the buckets:\n%s", got)
	}
	m := &mdBuilder{limit: 1 << 16}
	mdSlices(m, f)
	if got := m.b.String(); !strings.Contains(got, "| chat | short &lt; 512 tok | 12 | 0 | 300 |") && !strings.Contains(got, "| chat | short < 512 tok | 12 | 0 | 300 |") {
		t.Errorf("markdown does not name the buckets:\n%s", got)
	}
}
