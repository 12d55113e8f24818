package report

import (
	"strings"
	"testing"

	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/internal/comparetest"
	"github.com/llmgate/llmgate/results"
)

// TestABReports checks that every report of an A/B comparison says it is
// one job and shows both sides' environment, without the warning a
// different image gets between two jobs.
func TestABReports(t *testing.T) {
	spec := comparetest.RunSpec{Name: "chat", Scenario: "chat", TTFT: 100, TPOT: 10, E2EL: 500, OutTokPerSec: 500, Seed: 1}
	base := comparetest.File(results.Environment{Image: "vllm:main", ImageDigest: "sha256:aaa", VLLMVersion: "0.11.0"}, spec)
	cur := comparetest.File(results.Environment{Image: "vllm:pr", ImageDigest: "sha256:bbb", VLLMVersion: "0.11.1"}, spec)
	base.AB, cur.AB = &results.AB{Side: results.SideBaseline}, &results.AB{Side: results.SideCandidate}
	c := compare.Compare(base, cur, compare.DefaultConfig())
	if h := Headline(c); !strings.HasSuffix(h, ABPhrase) {
		t.Errorf("headline %q does not end with %q", h, ABPhrase)
	}
	md := Markdown(c, MarkdownOptions{})
	for _, want := range []string{"A/B in one job", "| environment | baseline side | candidate side |", "`sha256:aaa`", "`sha256:bbb`", "`0.11.1`"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "environment differs") || strings.Contains(md, "⚠️ **The environment") {
		t.Errorf("markdown warns about the sides' environments:\n%s", md)
	}
	base.AB = nil
	if h := Headline(compare.Compare(base, cur, compare.DefaultConfig())); strings.Contains(h, ABPhrase) {
		t.Errorf("a comparison of two jobs says %q", h)
	}
}

// TestSignificantInBandShown checks that a significant change the band
// allows reads as such in the terminal, markdown and HTML reports.
func TestSignificantInBandShown(t *testing.T) {
	spec := comparetest.RunSpec{Name: "chat", Scenario: "chat", TTFT: 100, TPOT: 10, E2EL: 500, OutTokPerSec: 500, Seed: 1}
	c := compare.Compare(comparetest.File(results.Environment{}, spec), comparetest.File(results.Environment{}, spec), compare.DefaultConfig())
	r := &c.Rows[0]
	r.Verdict, r.SignificantInBand, r.Reason = compare.Unchanged, true, "significant, but within the band"
	const want = "unchanged (significant, within the band)"
	var term strings.Builder
	if err := Terminal(&term, c, TerminalOptions{}); err != nil {
		t.Fatal(err)
	}
	var html strings.Builder
	if err := HTML(&html, c.Current, c.Baseline, c); err != nil {
		t.Fatal(err)
	}
	// the default terminal table says it in fewer words, to fit 100 columns
	const narrow = "unchanged (significant, in band)"
	for name, out := range map[string]string{"terminal": term.String(), "markdown": Markdown(c, MarkdownOptions{}), "html": html.String()} {
		want := want
		if name == "terminal" {
			want = narrow
		}
		if !strings.Contains(out, want) {
			t.Errorf("%s report lacks %q:\n%s", name, want, out)
		}
	}
}
