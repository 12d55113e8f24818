package compare

import (
	"fmt"
	"slices"

	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/untrusted"
)

// bucketsDiffer says why the input-length bucket named bucket of base and
// cur cannot be compared: its edges differ (other declared edges, or
// quantile edges drawn from other requests), so its figures cover other
// requests. "" when both runs have it with the same bounds, or when either
// lacks it (the row is then new or missing, as for any metric).
func bucketsDiffer(base, cur *results.Run, bucket string) string {
	b, c := base.Summary.LengthBucket(bucket), cur.Summary.LengthBucket(bucket)
	if b == nil || c == nil || b.MinInputTokens == c.MinInputTokens && b.MaxInputTokens == c.MaxInputTokens {
		return ""
	}
	return fmt.Sprintf("length bucket %s covers %s in the baseline and %s now: the bucket edges differ, so its figures are not comparable",
		bucket, b.Label, c.Label)
}

// bucketNotJudged records, once per run and reason, that a bucket's
// metrics could not be judged: the gate cannot pass on them.
func (c *Comparison) bucketNotJudged(run, reason string) {
	nj := NotJudged{Run: run, Kind: BucketsDiffer, Reason: untrusted.String(reason + "; promote a new baseline")}
	if !slices.Contains(c.NotJudged, nj) {
		c.NotJudged = append(c.NotJudged, nj)
	}
}
