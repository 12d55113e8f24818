package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/results"
)

const bucketSuite = "testdata/gate/buckets.hcl"

// TestGateLengthBuckets records a baseline whose assert on the long
// input-length bucket passes, gates the same server (pass), then a 3x
// slower one: the tolerance on length_bucket.long.e2el.p95 calls the
// regression and the report names the bucket's metric.
func TestGateLengthBuckets(t *testing.T) {
	fullRunOnly(t)
	gateNotActions(t)
	dir := t.TempDir()
	base := filepath.Join(dir, "baseline.json")
	if code, stdout, stderr := gateCLI(t, "run", bucketSuite, "--target", gateSim(t, 1), "-o", base); code != exitPass {
		t.Fatalf("recording the baseline: exit %d\n%s\n%s", code, stdout, stderr)
	}
	f, err := results.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	r := f.Runs[0]
	if len(r.Asserts) != 1 || !r.Asserts[0].Passed || r.Asserts[0].Values["length_bucket.long.e2el.p95"] <= 0 {
		t.Errorf("asserts %+v, want the bucket assert passed with the long bucket's value", r.Asserts)
	}
	if b := r.Summary.LengthBucket("long"); b == nil || b.MinInputTokens != 200 || b.Requests.Completed == 0 {
		t.Errorf("long bucket %+v, want requests of 200 tokens and more", b)
	}
	if r.Load == nil || strings.Join(r.Load.LengthBucketNames, ",") != "short,long" {
		t.Errorf("load config %+v does not record the bucket names", r.Load)
	}

	code, stdout, stderr := gateCLI(t, "gate", bucketSuite, "--baseline", base, "--target", gateSim(t, 1), "-o", filepath.Join(dir, "same.json"))
	if code != exitPass {
		t.Errorf("same server: exit %d, want 0\n%s\n%s", code, stdout, stderr)
	}
	code, stdout, stderr = gateCLI(t, "gate", bucketSuite, "--baseline", base, "--target", gateSim(t, 3), "-o", filepath.Join(dir, "slow.json"))
	if code != exitGate {
		t.Fatalf("3x slower: exit %d, want 1\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout+stderr, "length_bucket.long.e2el.p95") || !strings.Contains(strings.ToLower(stdout+stderr), "regression") {
		t.Errorf("the report does not name the long bucket's regression:\n%s\n%s", stdout, stderr)
	}
}
