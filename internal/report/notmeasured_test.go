package report

import (
	"strings"
	"testing"

	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/internal/comparetest"
	"github.com/llmgate/llmgate/results"
)

// TestNotMeasuredRows checks that a tolerance row of a metric neither run
// measured (ITL of answers that each came in one chunk) is in the
// terminal, markdown and HTML reports as "not measured" with its reason.
func TestNotMeasuredRows(t *testing.T) {
	file := func(seed uint64) *results.File {
		f := comparetest.File(results.Environment{Model: "m"}, comparetest.RunSpec{Name: "chat", TTFT: 100, TPOT: 10, E2EL: 2000, OutTokPerSec: 1000, ReqPerSec: 5, Seed: seed})
		f.Runs[0].Summary.ITL = results.Stats{}
		return f
	}
	base, cur := file(1), file(2)
	c := compare.Compare(base, cur, compare.Config{Tolerances: []compare.Tolerance{{Metric: "itl.p99", Relative: true, Amount: 0.1}}})
	var term, html strings.Builder
	if err := Terminal(&term, c, TerminalOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := HTML(&html, cur, base, c); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"terminal": term.String(), "markdown": Markdown(c, MarkdownOptions{}), "html": html.String()} {
		for _, want := range []string{"itl.p99", "not measured", "came in one chunk of output"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s report lacks %q:\n%s", name, want, out)
			}
		}
	}
}
