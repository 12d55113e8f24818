package suite

import (
	"slices"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/internal/plan"
	"github.com/llmgate/llmgate/results"
)

// TestBucketAsserts loads asserts on named and quantile buckets, then
// judges them against summaries that have the bucket, have it too slow,
// and lack it.
func TestBucketAsserts(t *testing.T) {
	s := mustLoad(t, `
scenario "named" {
  load {
    concurrency = 2
    requests    = 40
  }
  workload {
    range_ratio         = 0.9
    length_buckets      = [512]
    length_bucket_names = ["short", "long"]
  }
  assert "long prompts" {
    condition = length_bucket.long.ttft.p95 < 2 * length_bucket.short.ttft.p95
  }
}
scenario "quartiles" {
  load {
    concurrency = 2
    requests    = 40
  }
  workload {
    range_ratio      = 0.9
    length_quantiles = 4
  }
  assert "longest quarter" {
    condition = length_bucket.q4.ttft.p95 < 300
  }
}
gate {
  tolerance "length_bucket.long.ttft.p95" { max_regression = "10%" }
  tolerance "length_bucket.q1.e2el.mean" { max_regression = "+50ms" }
}
`, Options{})
	named, quart := s.Scenarios[0].Runs[0], s.Scenarios[1].Runs[0]
	if w := named.Load.Workload; !slices.Equal(w.LengthBucketNames, []string{"short", "long"}) || !slices.Equal(w.LengthBuckets, []int{512}) {
		t.Errorf("named buckets %v at %v", w.LengthBucketNames, w.LengthBuckets)
	}
	if w := quart.Load.Workload; w.LengthQuantiles != 4 || w.LengthBuckets != nil || !slices.Equal(w.LengthBucketNames, []string{"q1", "q2", "q3", "q4"}) {
		t.Errorf("quantile buckets %d %v %v: want 4 named q1..q4 and edges left to the run", w.LengthQuantiles, w.LengthBuckets, w.LengthBucketNames)
	}

	if got := plan.DescribeWorkload(named.Load.Workload); !strings.HasSuffix(got, "length buckets short < 512 ≤ long") {
		t.Errorf("--plan shows the workload as %q, without its buckets", got)
	}
	if got := plan.DescribeWorkload(quart.Load.Workload); !strings.Contains(got, "length buckets q1 to q4 (4 quantiles") {
		t.Errorf("--plan shows the workload as %q, without its quantile buckets", got)
	}

	slice := func(name string, p95 float64) results.Slice {
		return results.Slice{Name: name, Requests: results.Requests{Completed: 10}, TTFT: results.Stats{N: 10, P95: p95}}
	}
	sum := &results.Summary{LengthBuckets: []results.Slice{slice("short", 100), slice("long", 150)}}
	if r := named.EvalAsserts(sum)[0]; !r.Passed || r.Values["length_bucket.long.ttft.p95"] != 150 {
		t.Errorf("long 150 ms against short 100 ms: %+v, want passed with the value seen", r)
	}
	sum.LengthBuckets[1].TTFT.P95 = 250
	if r := named.EvalAsserts(sum)[0]; r.Passed || !strings.Contains(r.Message.Raw(), "length_bucket.long.ttft.p95 = 250") {
		t.Errorf("long 250 ms against short 100 ms: %+v, want failed naming the value", r)
	}
	sum = &results.Summary{LengthBuckets: []results.Slice{slice("q1", 50), slice("q2", 60), slice("q3", 70)}}
	if r := quart.EvalAsserts(sum)[0]; r.Passed || !strings.Contains(r.Message.Raw(), "length_bucket.q4.ttft.p95 was not measured") ||
		!strings.Contains(r.Message.Raw(), "no request of the run completed in the bucket") {
		t.Errorf("without a q4 bucket: %+v, want failed saying q4 was not measured", r)
	}
	if got := len(s.Gate.Tolerances); got != 2 {
		t.Errorf("%d tolerances on bucket metrics, want 2", got)
	}
}

// TestBucketCapacitySLO lets a capacity search's SLO hold a length bucket
// to its limit, judges it on the bucket's value, and refuses a bucket the
// workload does not declare.
func TestBucketCapacitySLO(t *testing.T) {
	const src = `
scenario "users" {
  load {
    requests = 40
  }
  workload {
    range_ratio      = 0.9
    length_quantiles = 2
  }
  capacity {
    vary = "concurrency"
    min  = 1
    max  = 8
    slo  = length_bucket.%s.ttft.p95 < 500
  }
}
`
	s := mustLoad(t, strings.ReplaceAll(src, "%s", "q2"), Options{})
	run := s.Scenarios[0].Runs[0]
	sum := &results.Summary{LengthBuckets: []results.Slice{
		{Name: "q1", TTFT: results.Stats{N: 5, P95: 100}}, {Name: "q2", TTFT: results.Stats{N: 5, P95: 700}},
	}}
	if r := run.EvalSLO(sum); r.Passed || r.Values["length_bucket.q2.ttft.p95"] != 700 {
		t.Errorf("q2 at 700 ms against an SLO of 500: %+v, want failed on the bucket's value", r)
	}
	sum.LengthBuckets[1].TTFT.P95 = 400
	if r := run.EvalSLO(sum); !r.Passed {
		t.Errorf("q2 at 400 ms against an SLO of 500: %+v, want passed", r)
	}
	errs := errorsOf(t, strings.ReplaceAll(src, "%s", "q3"))
	if len(errs) != 1 || !strings.Contains(errs[0], `no length bucket named "q3"`) || !strings.Contains(errs[0], "its buckets are q1, q2") {
		t.Errorf("an SLO on q3 of two quantiles: %q, want one error naming the buckets", errs)
	}
}
