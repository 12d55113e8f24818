package report

import (
	"fmt"
	"strings"

	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/internal/words"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/untrusted"
)

// notJudgedPhrase says in a phrase what the comparison could not judge:
// "2 current runs failed, 1 invalid, current results cut short"; "" when
// everything was judged.
func notJudgedPhrase(c *compare.Comparison) string {
	var parts []string
	statuses := map[compare.NotJudgedKind]map[results.Status]int{compare.CurrentInvalid: {}, compare.BaselineInvalid: {}}
	partial := false
	buckets := 0
	var problems []string
	for _, nj := range c.NotJudged {
		switch nj.Kind {
		case compare.CurrentInvalid, compare.BaselineInvalid:
			statuses[nj.Kind][nj.Status]++
		case compare.CurrentPartial:
			partial = true
		case compare.BucketsDiffer:
			buckets++
		case compare.RunProblem:
			problems = append(problems, untrusted.FirstLine(nj.Reason.Raw(), untrusted.MaxShown))
		}
	}
	for _, side := range []struct {
		kind compare.NotJudgedKind
		name string
	}{{compare.CurrentInvalid, "current"}, {compare.BaselineInvalid, "baseline"}} {
		var byStatus []string
		for _, st := range []results.Status{results.StatusFailed, results.StatusPartial, results.StatusInvalid} {
			k := statuses[side.kind][st]
			switch {
			case k == 0:
			case len(byStatus) == 0:
				byStatus = append(byStatus, fmt.Sprintf("%d %s %s %s", k, side.name, words.Pick(k, "run", "runs"), st))
			default:
				byStatus = append(byStatus, fmt.Sprintf("%d %s", k, st))
			}
		}
		if len(byStatus) > 0 {
			parts = append(parts, strings.Join(byStatus, ", "))
		}
	}
	if partial && len(problems) == 0 { // else the problem says why it was cut short
		parts = append(parts, "current results cut short")
	}
	if buckets > 0 {
		parts = append(parts, words.Count(buckets, "length bucket with other edges", "length buckets with other edges"))
	}
	parts = append(parts, problems...)
	if m := c.RunsNeverRan(); len(m) > 0 {
		parts = append(parts, words.Count(len(m), "run never ran", "runs never ran"))
	}
	return strings.Join(parts, ", ")
}
