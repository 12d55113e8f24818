package runner

import (
	"context"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// A conversation suite run end to end on the simulator records its think
// time and buckets in the load config, its per-turn and per-bucket slices
// in the summary, and evaluates an assert on per-turn metrics.
func TestRunTurnsAndBuckets(t *testing.T) {
	s := loadSuite(t, "turns.hcl", nil)
	f, err := Run(context.Background(), s, Options{OutputPath: filepath.Join(t.TempDir(), "results.json")})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	r := f.Runs[0]
	if r.Load == nil || r.Load.ThinkTimeS != 0.05 || len(r.Load.LengthBuckets) != 1 || r.Load.LengthBuckets[0] != 64 {
		t.Errorf("load config %+v, want think_time_s 0.05 and length_buckets [64]", r.Load)
	}
	tu := r.Summary.Turns
	if tu == nil || tu.First.Requests.Completed == 0 || tu.Later.Requests.Completed == 0 {
		t.Fatalf("turn slices %+v, want first and later turns", tu)
	}
	b := r.Summary.LengthBuckets
	if len(b) != 2 || b[0].Requests.Completed+b[1].Requests.Completed != r.Summary.Requests.Completed {
		t.Errorf("length buckets %+v do not split the %d completed requests", b, r.Summary.Requests.Completed)
	}
	if len(r.Asserts) != 1 || !r.Asserts[0].Passed {
		t.Errorf("asserts %+v, want the per-turn assert evaluated and passed", r.Asserts)
	}
}

// A run with quantile buckets records the edges it drew from its
// requested lengths, splits its requests into four buckets of ten named
// q1 to q4, and evaluates an assert on q4; a second run of the suite draws
// the same edges.
func TestRunQuantileBuckets(t *testing.T) {
	var edges [2][]int
	for i := range edges {
		f, err := Run(context.Background(), loadSuite(t, "quantiles.hcl", nil), Options{OutputPath: filepath.Join(t.TempDir(), "results.json")})
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		r := f.Runs[0]
		if r.Load == nil || r.Load.LengthQuantiles != 4 || len(r.Load.LengthBuckets) != 3 {
			t.Fatalf("load config %+v, want 4 quantiles and their 3 edges", r.Load)
		}
		edges[i] = r.Load.LengthBuckets
		for j, b := range r.Summary.LengthBuckets {
			if want := "q" + strconv.Itoa(j+1); b.Name != want || b.Requests.Completed != 10 {
				t.Errorf("bucket %d: %s with %d requests (%s), want %s with 10", j, b.Name, b.Requests.Completed, b.Label, want)
			}
		}
		if len(r.Asserts) != 1 || !r.Asserts[0].Passed {
			t.Errorf("asserts %+v, want the q4 assert evaluated and passed", r.Asserts)
		}
	}
	if !slices.Equal(edges[0], edges[1]) {
		t.Errorf("edges %v then %v: two runs of one suite must bucket alike", edges[0], edges[1])
	}
}
