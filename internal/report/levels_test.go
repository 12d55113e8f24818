package report

import (
	"bytes"
	stdhtml "html"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/internal/comparetest"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/untrusted"
)

// TestShortfalls checks runs that were too short to reach the load they
// are named after say so in the run table's notes, the markdown and the
// HTML report: one that held fewer users than its concurrency "never
// reached" it, one that held about as many was "not checked", and runs
// long enough, open loops and files without a recorded load say nothing.
func TestShortfalls(t *testing.T) {
	mk := func(name string, n int) comparetest.RunSpec {
		return comparetest.RunSpec{Name: name, TTFT: 100, TPOT: 9, E2EL: 2000, OutTokPerSec: 1000, ReqPerSec: 4, N: n}
	}
	specs := []comparetest.RunSpec{mk("moe[concurrency=32]", 52), mk("batch", 8), mk("long", 200), mk("open", 10), mk("old", 10)}
	f := comparetest.File(results.Environment{Model: "m"}, specs...)
	set := func(i int, l *results.LoadConfig, inFlight float64) {
		f.Runs[i].Load, f.Runs[i].Summary.Client.MeanInFlight = l, inFlight
	}
	set(0, &results.LoadConfig{Concurrency: 32, Requests: 52}, 20.3)
	set(1, &results.LoadConfig{Concurrency: 4, Requests: 8}, 3.91)
	set(2, &results.LoadConfig{Concurrency: 32, Requests: 200}, 31)
	set(3, &results.LoadConfig{Rate: 5, Concurrency: 32, Requests: 10}, 2)
	set(4, nil, 3)
	want := []string{
		"moe[concurrency=32]: never reached its 32 users: 20.3 in flight on average over 52 measured requests, at most 2 × the concurrency; send more than 64 to reach and check it",
		"batch: its 4 users not checked: 8 measured requests, at most 2 × the concurrency (3.91 in flight on average); send more than 8 to check it",
	}
	var term, page bytes.Buffer
	if err := RunTable(&term, f); err != nil {
		t.Fatal(err)
	}
	if err := HTML(&page, f, nil, nil); err != nil {
		t.Fatal(err)
	}
	outs := map[string]string{"terminal": term.String(), "html": stdhtml.UnescapeString(page.String()),
		"markdown without a baseline": Markdown(compare.Compare(nil, f, compare.DefaultConfig()), MarkdownOptions{}),
		"markdown":                    Markdown(compare.Compare(f, f, compare.DefaultConfig()), MarkdownOptions{})}
	for name, out := range outs {
		if !strings.Contains(out, shortfallsTitle) {
			t.Errorf("%s lacks the heading %q", name, shortfallsTitle)
		}
		for _, w := range want {
			if name == "markdown" || name == "markdown without a baseline" {
				w = untrusted.Markdown(w)
			}
			if strings.Count(out, w) != 1 {
				t.Errorf("%s has %d times %q", name, strings.Count(out, w), w)
			}
		}
		for _, quiet := range []string{"long: ", "open: ", "old: "} {
			if strings.Contains(out, "- "+quiet) || strings.Contains(out, "<li>"+quiet) {
				t.Errorf("%s says a run of enough requests, an open loop or an old file fell short (%s)", name, quiet)
			}
		}
	}
}
