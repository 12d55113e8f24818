package compare

import (
	"strconv"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/compare/comparetest"
	"github.com/llmgate/llmgate/results"
)

// bucketFile is one run whose short and long buckets have the given TTFT
// p95, long starting at edge tokens.
func bucketFile(short, long float64, edge int) *results.File {
	f := comparetest.File(results.Environment{Model: "m"}, spec("r", 100, 1))
	f.Runs[0].Summary.LengthBuckets = []results.Slice{
		{Name: "short", Label: "< " + strconv.Itoa(edge) + " tok", MaxInputTokens: edge, Requests: results.Requests{Completed: 50}, TTFT: results.Stats{N: 50, P95: short}},
		{Name: "long", Label: "≥ " + strconv.Itoa(edge) + " tok", MinInputTokens: edge, Requests: results.Requests{Completed: 50}, TTFT: results.Stats{N: 50, P95: long}},
	}
	return f
}

// TestCompareBuckets judges bucket metrics by their tolerance band: the
// long bucket's regression is caught while the short bucket is unchanged,
// and buckets whose edges moved are not compared at all.
func TestCompareBuckets(t *testing.T) {
	cfg := Config{Tolerances: []Tolerance{
		{Metric: "length_bucket.short.ttft.p95", Relative: true, Amount: 0.10},
		{Metric: "length_bucket.long.ttft.p95", Relative: true, Amount: 0.10},
		{Metric: "length_bucket.medium.ttft.p95", Relative: true, Amount: 0.10},
	}}
	c := Compare(bucketFile(40, 200, 512), bucketFile(41, 300, 512), cfg)
	got := map[string]Row{}
	for _, r := range c.Rows {
		got[r.Metric.Name] = r
	}
	if len(c.Rows) != 2 {
		t.Errorf("%d rows, want 2 (the medium bucket is in neither run)", len(c.Rows))
	}
	if r := got["length_bucket.long.ttft.p95"]; r.Verdict != Regression || r.Baseline != 200 || r.Current != 300 || r.Metric.Bucket != "long" {
		t.Errorf("long bucket 200 → 300 ms: %s (%v → %v, %s), want a regression", r.Verdict, r.Baseline, r.Current, r.Reason)
	}
	if r := got["length_bucket.short.ttft.p95"]; r.Verdict != Unchanged {
		t.Errorf("short bucket 40 → 41 ms: %s (%s), want unchanged", r.Verdict, r.Reason)
	}

	c = Compare(bucketFile(40, 200, 512), bucketFile(40, 200, 1024), cfg)
	for _, r := range c.Rows {
		if r.Verdict != Invalid || !strings.Contains(r.Reason, "edges differ") || !strings.Contains(r.Reason, "≥ 512 tok in the baseline and ≥ 1024 tok now") && r.Metric.Bucket == "long" {
			t.Errorf("%s with moved edges: %s (%s), want invalid saying the edges differ", r.Metric.Name, r.Verdict, r.Reason)
		}
	}
	// an incomparable bucket is not judged: the gate cannot pass on it
	if d := c.Decide(); d != DecisionError || len(c.NotJudged) != 2 || c.NotJudged[0].Kind != BucketsDiffer {
		t.Errorf("decision %s, not judged %+v: want error, one entry a bucket", d, c.NotJudged)
	}
}
