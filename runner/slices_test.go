package runner

import (
	"context"
	"path/filepath"
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
