package report

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/internal/comparetest"
	"github.com/llmgate/llmgate/results"
)

func TestTerminal(t *testing.T) {
	_, _, c := fixture()
	for _, tt := range []struct {
		golden string
		opts   TerminalOptions
	}{{"terminal.txt", TerminalOptions{}}, {"terminal_wide.txt", TerminalOptions{Wide: true}}} {
		var b strings.Builder
		if err := Terminal(&b, c, tt.opts); err != nil {
			t.Fatal(err)
		}
		checkGolden(t, tt.golden, b.String())
		if !strings.Contains(b.String(), "❌") || !strings.Contains(b.String(), "regression") {
			t.Errorf("%s: terminal output does not show the regression:\n%s", tt.golden, b.String())
		}
	}
}

// TestTerminalFits checks no line of the default comparison table is wider
// than MaxTerminalWidth columns for the golden inputs (it was about 170),
// while --wide keeps every row's evidence.
func TestTerminalFits(t *testing.T) {
	for name, fix := range map[string]func() (base, cur *results.File, c *compare.Comparison){"report": fixture, "report-gpu": gpuFixture} {
		_, _, c := fix()
		var b, wide strings.Builder
		if err := Terminal(&b, c, TerminalOptions{}); err != nil {
			t.Fatal(err)
		}
		table, _, _ := strings.Cut(b.String(), "\n\n") // the table ends at the first blank line
		if n := strings.Count(table, "\n"); n < len(c.Rows) {
			t.Fatalf("%s: the table has %d lines for %d rows:\n%s", name, n, len(c.Rows), table)
		}
		for _, l := range strings.Split(table, "\n") {
			if w := utf8.RuneCountInString(l); w > MaxTerminalWidth {
				t.Errorf("%s: a line of the default table is %d columns wide, over %d:\n%s", name, w, MaxTerminalWidth, l)
			}
		}
		if err := Terminal(&wide, c, TerminalOptions{Wide: true}); err != nil {
			t.Fatal(err)
		}
		for i := range c.Rows {
			if r := &c.Rows[i]; r.Tested() && !strings.Contains(wide.String(), Evidence(r)) {
				t.Errorf("%s: the wide table lacks the evidence of %s %s: %s", name, r.Run, r.Metric.Name, Evidence(r))
			}
		}
	}
}

func TestMarkdown(t *testing.T) {
	_, _, c := fixture()
	md := Markdown(c, MarkdownOptions{Title: "llama-8b-gate"})
	checkGolden(t, "markdown.md", md)
	first, _, _ := strings.Cut(md, "\n")
	if !strings.Contains(first, "❌") || !strings.Contains(first, "regression") {
		t.Errorf("first line %q is not the failing verdict", first)
	}
	for _, want := range []string{"xychart-beta", "<details>", "vLLM version", "ttft_interactive"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
}

func TestMarkdownPassing(t *testing.T) {
	env := results.Environment{Model: "m"}
	spec := comparetest.RunSpec{Name: "chat", TTFT: 100, TPOT: 9, E2EL: 2000, OutTokPerSec: 1000, ReqPerSec: 4, CV: 0.1, N: 300}
	other := spec
	other.Seed = 7
	c := compare.Compare(comparetest.File(env, spec), comparetest.File(env, other), compare.DefaultConfig())
	md := Markdown(c, MarkdownOptions{})
	if !strings.HasPrefix(md, "### llmgate · fixture: ✅ no regression in 4 metrics") {
		t.Errorf("passing verdict line wrong:\n%s", md)
	}
}

// TestMarkdownTruncates checks a comparison far too big for a PR comment
// stays under the limit and says it was cut.
func TestMarkdownTruncates(t *testing.T) {
	_, _, c := fixture()
	var rows []compare.Row
	for i := 0; i < 3000; i++ {
		r := c.Rows[0]
		r.Run = strings.Repeat("x", 20) + string(rune('a'+i%26))
		rows = append(rows, r)
	}
	c.Rows = rows
	for i := 0; i < 500; i++ {
		c.Warnings = append(c.Warnings, errors.New(strings.Repeat("w", 100)))
	}
	md := Markdown(c, MarkdownOptions{})
	if len(md) > MaxMarkdown {
		t.Errorf("markdown is %d bytes, over %d", len(md), MaxMarkdown)
	}
	if !strings.Contains(md, "_Truncated:") {
		t.Errorf("truncated markdown lacks the note; tail:\n%s", md[len(md)-300:])
	}
	if !strings.Contains(md, "ttft_interactive") {
		t.Error("truncated markdown lost the failed assert, which decides the gate")
	}
	small := Markdown(c, MarkdownOptions{MaxLen: 5000})
	if len(small) > 5000 {
		t.Errorf("markdown with MaxLen 5000 is %d bytes", len(small))
	}
	// Cut anywhere, the markdown must stay well formed: no code fence or
	// collapsed section left open to swallow the rest of the page.
	_, _, full := fixture()
	whole := Markdown(full, MarkdownOptions{})
	for limit := 600; limit < len(whole)+400; limit += 97 {
		md := Markdown(full, MarkdownOptions{MaxLen: limit})
		if n := strings.Count(md, "```"); n%2 != 0 {
			t.Errorf("MaxLen %d: %d code fences, one left open:\n%s", limit, n, md)
		}
		if o, c := strings.Count(md, "<details>"), strings.Count(md, "</details>"); o != c {
			t.Errorf("MaxLen %d: %d <details> but %d </details>", limit, o, c)
		}
		if len(md) > limit {
			t.Errorf("MaxLen %d: markdown is %d bytes", limit, len(md))
		}
	}
}

// TestNoBaseline checks a comparison without a baseline (a repository's
// first PR) renders in both formats and says only asserts were judged.
func TestNoBaseline(t *testing.T) {
	spec := comparetest.RunSpec{Name: "chat", TTFT: 100, TPOT: 9, E2EL: 2000, OutTokPerSec: 1000, ReqPerSec: 4, CV: 0.1, N: 50}
	c := compare.Compare(nil, comparetest.File(results.Environment{Model: "m"}, spec), compare.DefaultConfig())
	if len(c.Rows) != 0 || c.Failed() {
		t.Fatalf("no-baseline comparison has %d rows, failed=%v; want none and a pass", len(c.Rows), c.Failed())
	}
	md := Markdown(c, MarkdownOptions{Title: "first"})
	var term strings.Builder
	if err := Terminal(&term, c, TerminalOptions{}); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"markdown": md, "terminal": term.String()} {
		if !strings.Contains(out, "no baseline") {
			t.Errorf("%s output does not say there is no baseline:\n%s", name, out)
		}
	}
	if first, _, _ := strings.Cut(md, "\n"); !strings.Contains(first, "✅ every assert passed") {
		t.Errorf("first line %q does not say the asserts passed", first)
	}
	failing := spec
	failing.Asserts = []results.AssertResult{{Name: "slo", Condition: "ttft.p95 < 1"}}
	c = compare.Compare(nil, comparetest.File(results.Environment{Model: "m"}, failing), compare.DefaultConfig())
	if h := Headline(c); !c.Failed() || h != "❌ 1 failed assert (no baseline, so no regression was checked)" {
		t.Errorf("failed assert without a baseline: Failed()=%v, headline %q", c.Failed(), h)
	}
}

// TestNotJudgedExplained checks an invalid run's reason reaches the reader
// in both the terminal and the markdown, not just the word "invalid".
func TestNotJudgedExplained(t *testing.T) {
	env := results.Environment{Model: "m"}
	spec := comparetest.RunSpec{Name: "chat", TTFT: 100, TPOT: 9, E2EL: 2000, OutTokPerSec: 1000, ReqPerSec: 4, N: 100}
	bad := spec
	bad.Seed, bad.Status = 2, results.StatusInvalid
	c := compare.Compare(comparetest.File(env, spec), comparetest.File(env, bad), compare.DefaultConfig())
	var term strings.Builder
	if err := Terminal(&term, c, TerminalOptions{}); err != nil {
		t.Fatal(err)
	}
	md := Markdown(c, MarkdownOptions{})
	const why = "achieved rate 7.1/s below planned 10/s" // comparetest's invalid reason
	for name, out := range map[string]string{"terminal": term.String(), "markdown": md} {
		if n := strings.Count(out, "chat: current run is invalid: "+why); n != 1 {
			t.Errorf("%s says why chat was not judged %d times, want once:\n%s", name, n, out)
		}
	}
}

// TestChangeAlwaysShown checks that an inconclusive row still shows how far
// it moved, with the interval and the test, in the terminal and markdown.
func TestChangeAlwaysShown(t *testing.T) {
	m, _ := results.LookupMetric("ttft.p95")
	r := compare.Row{Run: "chat", Metric: m, Tolerance: compare.Tolerance{Metric: "ttft.p95", Relative: true, Amount: 0.1},
		ChangeEstimate: compare.ChangeEstimate{Baseline: 69, Current: 315, Change: 3.565, Delta: 246, ChangeLo: -0.5, ChangeHi: 7.6, Estimator: compare.HarrellDavisEstimator},
		Evidence:       compare.Evidence{Test: compare.QuantileDifference, P: 0.577, N1: 40, N2: 40},
		Judgement:      compare.Judgement{Verdict: compare.Inconclusive, Rerun: true}}
	c := &compare.Comparison{Baseline: &results.File{}, Current: &results.File{}, Rows: []compare.Row{r}}
	var term strings.Builder
	if err := Terminal(&term, c, TerminalOptions{Wide: true}); err != nil {
		t.Fatal(err)
	}
	md := Markdown(c, MarkdownOptions{})
	for name, out := range map[string]string{"terminal --wide": term.String(), "markdown": md} {
		for _, want := range []string{"+356.5% ~", "CI [-50.0%, +760.0%] maritz-jarrett p=0.577 n=40+40", "harrell-davis", "69.0ms", "315ms"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s lacks %q:\n%s", name, want, out)
			}
		}
	}
}

// TestMarkdownNoBaseline checks the markdown of a gate without a baseline
// (--baseline none, a project's first pull requests) shows the runs'
// numbers and every assert with the values it saw, where it once said "All
// 0 metrics" over empty tables.
func TestMarkdownNoBaseline(t *testing.T) {
	_, cur, _ := fixture()
	cur.Runs[0].Asserts[0].Values = map[string]float64{"ttft.p95": 181.5}
	cur.Runs[1].Asserts = []results.AssertResult{{Name: "fast_enough", Passed: true, Condition: "ttft.p95 < var.ttft_ms",
		Values: map[string]float64{"ttft.p95": 124, "var.ttft_ms": 500}, Units: map[string]results.Unit{"var.ttft_ms": results.Milliseconds}}}
	c := compare.Compare(nil, cur, compare.DefaultConfig())
	md := Markdown(c, MarkdownOptions{Title: "first"})
	checkGolden(t, "markdown_nobaseline.md", md)
	for _, want := range []string{"**Runs**", "| chat | ok | 400 | 0 |", "**Asserts**",
		"| chat | `ttft_interactive` | `ttft.p95 < 150` | ❌ failed | ttft.p95 = 182ms |",
		"| sweep\\[concurrency=1\\] | `fast_enough` | `ttft.p95 < var.ttft_ms` | ✅ passed | ttft.p95 = 124ms, var.ttft_ms = 500ms |",
		"| model | `meta-llama/Llama-3.1-8B-Instruct` |"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown without a baseline lacks %q", want)
		}
	}
	for _, bad := range []string{"All 0 metrics", "| run | metric | estimator |", "| environment | baseline | current |"} {
		if strings.Contains(md, bad) {
			t.Errorf("markdown without a baseline holds %q", bad)
		}
	}
}
