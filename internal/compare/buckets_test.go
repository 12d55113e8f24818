package compare

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llmgate/llmgate/internal/comparetest"
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
		if r.Verdict != Invalid || !strings.Contains(r.Reason.Raw(), "edges differ") || !strings.Contains(r.Reason.Raw(), "≥ 512 tok in the baseline and ≥ 1024 tok now") && r.Metric.Bucket == "long" {
			t.Errorf("%s with moved edges: %s (%s), want invalid saying the edges differ", r.Metric.Name, r.Verdict, r.Reason)
		}
	}
	// an incomparable bucket is not judged: the gate cannot pass on it
	if d := c.Decide(); d != DecisionError || len(c.NotJudged) != 2 || c.NotJudged[0].Kind != BucketsDiffer {
		t.Errorf("decision %s, not judged %+v: want error, one entry a bucket", d, c.NotJudged)
	}
}

// logFile is one run of 200 requests, alternately short (100 tokens, TTFT
// about 50 ms) and long (1000 tokens, TTFT about long ms), analysed into
// buckets split at 512 so that the run keeps its request log.
func logFile(long float64, seed uint64) *results.File {
	rng := rand.New(rand.NewPCG(seed, 1))
	var recs []results.Record
	for i := range 200 {
		in, ttft := 100, 50.0
		if i%2 == 1 {
			in, ttft = 1000, long
		}
		ttft *= 1 + 0.1*rng.NormFloat64()
		d := time.Duration(ttft * float64(time.Millisecond))
		recs = append(recs, results.Record{Seq: i, Sent: time.Duration(i) * 10 * time.Millisecond, InputTokens: in, OutputTokens: 2,
			TTFT: d, E2EL: d + time.Millisecond, ITL: []float64{1}})
	}
	a := results.Analyze(recs, results.SummarizeOptions{LengthBuckets: []int{512}, LengthBucketNames: []string{"short", "long"}})
	f := comparetest.File(results.Environment{Model: "m"}, spec("r", 100, 1))
	f.Runs[0].Summary, f.Runs[0].Samples, f.Runs[0].Requests = a.Summary, a.Samples, a.Requests
	return f
}

// TestCompareBucketSamples tests a bucket's change on the bucket's own
// requests from the request log: a 20% slower long bucket is significant
// (Harrell-Davis, an interval) while the short bucket, unchanged, is not.
func TestCompareBucketSamples(t *testing.T) {
	m, _ := results.LookupMetric("length_bucket.long.ttft.p95")
	base, cur := logFile(200, 1), logFile(240, 2)
	if got := len(m.Samples(&base.Runs[0])); got != 100 {
		t.Fatalf("long bucket has %d samples, want its 100 requests", got)
	}
	cfg := Config{Tolerances: []Tolerance{
		{Metric: "length_bucket.short.ttft.p95", Relative: true, Amount: 0.05},
		{Metric: "length_bucket.long.ttft.p95", Relative: true, Amount: 0.05},
	}}
	c := Compare(base, cur, cfg)
	got := map[string]Row{}
	for _, r := range c.Rows {
		got[r.Metric.Name] = r
	}
	long, short := got["length_bucket.long.ttft.p95"], got["length_bucket.short.ttft.p95"]
	if long.Estimator == FromSummary || long.Verdict != Regression || !(long.ChangeLo > 0) || long.N1 != 0 && long.N1 != 100 {
		t.Errorf("long bucket 200 → 240 ms: %s by %v, change %.3f [%.3f, %.3f] (%s); want a regression from its samples", long.Verdict, long.Estimator, long.Change, long.ChangeLo, long.ChangeHi, long.Reason)
	}
	if short.Estimator == FromSummary || short.Verdict == Regression || short.Verdict == Improvement {
		t.Errorf("short bucket unchanged: %s by %v, change %.3f (%s)", short.Verdict, short.Estimator, short.Change, short.Reason)
	}
}
