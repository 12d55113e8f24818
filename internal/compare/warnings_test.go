package compare

import (
	"strings"
	"testing"

	"github.com/llmgate/llmgate/results"
)

// pairedTest reports whether t is one of the tests over block pairs.
func pairedTest(t Test) bool {
	return t == PairedBlocks || t == PairedShift || t == PairedJackknife
}

// TestWarningsOfTheDecidingTest checks that a row carries the warnings of
// the test that decided it: an A/B job of 8 pairs of 3 requests a side is
// judged over its pairs, and the unpaired test's "few samples" warning,
// which no longer runs, is nowhere; the same requests as separate jobs
// warn, on the row and in AllWarnings.
func TestWarningsOfTheDecidingTest(t *testing.T) {
	cfg := Config{Tolerances: []Tolerance{{Metric: "ttft.p95", Relative: true, Amount: 0.10}, {Metric: "ttft.mean", Relative: true, Amount: 0.10}}}
	base, cand := abFiles(5, 8, 3, 1)
	c := Compare(base, cand, cfg)
	if ws := c.AllWarnings(); len(ws) != 0 {
		t.Errorf("an A/B job judged over its pairs warns: %v", ws)
	}
	for _, r := range c.Rows {
		if !pairedTest(r.Test) || len(r.Warnings) != 0 {
			t.Errorf("%s: %s, warnings %v", r.Metric.Name, r.Test, r.Warnings)
		}
	}
	base.AB, cand.AB = nil, nil
	base.Runs[0].Blocks, cand.Runs[0].Blocks = nil, nil
	base.Environment, cand.Environment = results.Environment{}, results.Environment{}
	c = Compare(base, cand, cfg)
	for _, r := range c.Rows {
		if len(r.Warnings) == 0 || !strings.Contains(r.Warnings[0].Error(), "only 24 baseline and 24 current samples") {
			t.Errorf("%s, separate jobs of 24 requests: warnings %v", r.Metric.Name, r.Warnings)
		}
	}
	if ws := c.AllWarnings(); len(ws) < len(c.Rows) || len(c.Warnings) != 0 {
		t.Errorf("AllWarnings %v, the comparison's own %v: want the rows' and none of its own", ws, c.Warnings)
	}
}
