package report

import (
	"strings"

	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/internal/words"
	"github.com/llmgate/llmgate/results"
)

// GateHeadline is the headline of the verdict a gate recorded in a
// results file (results.GateVerdict), for a report whose own comparison
// does not reproduce it: "❌ gate FAIL: 2 regressions in 2 metrics", with
// the counts Headline gives for the same comparison.
func GateHeadline(v *results.GateVerdict) string {
	d := compare.Decision(v.Decision)
	return verdictMark(d) + " " + gateHeadlineText(v)
}

// gateHeadlineText is GateHeadline without its mark.
func gateHeadlineText(v *results.GateVerdict) string {
	var bad []string
	if v.Regressions > 0 {
		bad = append(bad, words.Count(v.Regressions, "regression", "regressions"))
	}
	if v.FailedAsserts > 0 {
		bad = append(bad, words.Count(v.FailedAsserts, "failed assert", "failed asserts"))
	}
	if v.Inconclusive > 0 {
		bad = append(bad, words.Count(v.Inconclusive, "inconclusive", "inconclusive"))
	}
	s := "no regression"
	if len(bad) > 0 {
		s = strings.Join(bad, ", ")
	}
	return "gate " + strings.ToUpper(v.Decision) + ": " + s + " in " + words.Count(v.Metrics, "metric", "metrics")
}
