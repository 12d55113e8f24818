package suite

import (
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/llmgate/llmgate/internal/plan"
	"github.com/llmgate/llmgate/results"
)

// checkBucketRefs reports each reference of cond to a length bucket that
// run's workload does not declare, with the buckets it does declare. A
// reference is reported once however many runs lack its bucket (seen
// holds those reported). It returns false when cond has such a reference.
func (l *loader) checkBucketRefs(run *plan.Run, cond *hcl.Attribute, seen map[hcl.Pos]bool) bool {
	ok := true
	for _, tr := range cond.Expr.Variables() {
		m, isMetric := results.LookupMetric(traversalText(tr))
		if !isMetric || m.Bucket == "" {
			continue
		}
		names := run.Load.Workload.LengthBucketNames
		if contains(names, m.Bucket) {
			continue
		}
		ok = false
		rng := tr.SourceRange()
		if seen[rng.Start] {
			continue
		}
		seen[rng.Start] = true
		l.errorf(rng.Ptr(), cond.Range.Ptr(), "Unknown length bucket", "%s", unknownBucketDetail(m.Bucket, names, "run "+run.Name))
	}
	return ok
}

// bucketsNamed lists the length buckets cond's metrics name.
func bucketsNamed(cond *hcl.Attribute) []string {
	var names []string
	for _, tr := range cond.Expr.Variables() {
		if m, ok := results.LookupMetric(traversalText(tr)); ok && m.Bucket != "" && !contains(names, m.Bucket) {
			names = append(names, m.Bucket)
		}
	}
	return names
}

// unknownBucketDetail says that bucket is not among names, the buckets of
// where, and suggests the nearest.
func unknownBucketDetail(bucket string, names []string, where string) string {
	if len(names) == 0 {
		return "There is no length bucket named \"" + bucket + "\": " + where +
			" declares no input-length buckets. Add length_buckets = [edges] or length_quantiles = n to its workload."
	}
	return "There is no length bucket named \"" + bucket + "\" in " + where + "; its buckets are " +
		strings.Join(names, ", ") + "." + didYouMean(bucket, names)
}
