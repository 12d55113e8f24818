package runner

import (
	"fmt"
	"strings"

	"github.com/llmgate/llmgate/internal/plan"
	"github.com/llmgate/llmgate/results"
)

// ShardPlan cuts plan to shard sh (nil: the whole plan) and returns the cut
// plan with the PlanInfo its results file records: the whole plan's
// fingerprint and run count and, for a shard, its index, the shard count
// and the runs it plans.
func ShardPlan(plan *plan.Plan, sh *plan.Shard) (*plan.Plan, *results.PlanInfo) {
	info := &results.PlanInfo{Fingerprint: plan.Fingerprint(), Runs: len(plan.Runs())}
	if sh == nil {
		return plan, info
	}
	cut := plan.Shard(*sh)
	names := []string{}
	for _, r := range cut.Runs() {
		names = append(names, r.Name)
	}
	info.Shards = sh.Count
	info.Parts = []results.ShardPart{{Shard: sh.Index, Planned: names}}
	return cut, info
}

// rerunPlanInfo is info marked as a confirming rerun's (nil stays nil).
func rerunPlanInfo(info *results.PlanInfo) *results.PlanInfo {
	if info == nil {
		return nil
	}
	r := *info
	r.Parts = append([]results.ShardPart(nil), info.Parts...)
	r.Rerun = true
	return &r
}

// DescribeShard says in one line what shard sh of the plan full holds, e.g.
// "shard 2/4: 2 server group(s), 5 run(s), 1200 planned requests".
func DescribeShard(full *plan.Plan, sh plan.Shard) string {
	cut := full.Shard(sh)
	if len(cut.Groups) == 0 {
		return fmt.Sprintf("shard %s has nothing to run: the plan's %d server group(s) went to other shards; its results file holds no runs", sh, len(full.Groups))
	}
	var amount float64
	unit := ""
	for _, w := range cut.Weights() {
		amount, unit = amount+w.Amount, w.Unit
	}
	weight := fmt.Sprintf("%.0f planned requests", amount)
	if unit == plan.WeightSeconds {
		weight = fmt.Sprintf("about %.0f s of load", amount)
	}
	return fmt.Sprintf("shard %s: %d of %d server group(s), %d of %d run(s), %s", sh, len(cut.Groups), len(full.Groups),
		len(cut.Runs()), len(full.Runs()), weight)
}

// baselineForPlan leaves out of the baseline the runs that the suite plans
// but plan does not, so that a shard or an --only selection is not told
// that every other run is missing; it returns their names for a note. A
// baseline run the suite does not plan at all stays: the results will lack
// it, and a run that silently stopped running fails the gate. A nil plan
// keeps every run.
func baselineForPlan(base *results.File, full, plan *plan.Plan) (*results.File, []string) {
	if base == nil || plan == nil || full == nil {
		return base, nil
	}
	in, planned := map[string]bool{}, map[string]bool{}
	for _, r := range plan.Runs() {
		in[r.Name] = true
	}
	for _, r := range full.Runs() {
		planned[r.Name] = true
	}
	cut := *base
	cut.Runs = nil
	var skipped []string
	for i := range base.Runs {
		switch name := base.Runs[i].Name; {
		case in[name] || !planned[name]:
			cut.Runs = append(cut.Runs, base.Runs[i])
		default:
			skipped = append(skipped, name)
		}
	}
	return &cut, skipped
}

// skippedNote says which baseline runs a narrowed plan leaves unjudged;
// "" when none.
func skippedNote(skipped []string) string {
	if len(skipped) == 0 {
		return ""
	}
	return fmt.Sprintf("narrowed on purpose (--only or --shard): %d baseline run(s) not run here and not judged: %s", len(skipped), strings.Join(skipped, ", "))
}

// missingRuns lists the plan's runs that f lacks, grouped by the shard
// that planned them when f is of a split plan: what a gate on given
// results says is missing.
func missingRuns(plan *plan.Plan, f *results.File) []string {
	have := map[string]bool{}
	for i := range f.Runs {
		have[f.Runs[i].Name] = true
	}
	if !f.Sharded() {
		var names []string
		for _, r := range plan.Runs() {
			if !have[r.Name] {
				names = append(names, r.Name)
			}
		}
		if len(names) == 0 {
			return nil
		}
		return []string{strings.Join(names, ", ")}
	}
	absent := map[int]bool{}
	for _, i := range f.Plan.MissingShards() {
		absent[i] = true
	}
	var out []string
	for i, sp := range plan.Split(f.Plan.Shards) {
		var names []string
		for _, r := range sp.Runs() {
			if !have[r.Name] {
				names = append(names, r.Name)
			}
		}
		if len(names) == 0 {
			continue
		}
		why := "cut short"
		if absent[i+1] {
			why = "no results file"
		}
		out = append(out, fmt.Sprintf("shard %d/%d (%s): %s", i+1, f.Plan.Shards, why, strings.Join(names, ", ")))
	}
	return out
}
