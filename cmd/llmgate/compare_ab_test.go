package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/internal/comparetest"
	"github.com/llmgate/llmgate/results"
)

// abSides builds the two sides of an A/B job of one chat run: 8 block
// pairs of 25 requests, the candidate's TTFT scaled by scale.
func abSides(seed uint64, scale float64) (base, cand *results.File) {
	side := func(name results.ABSide, ttft float64, offset uint64) *results.File {
		f := comparetest.File(results.Environment{Model: "m"}, comparetest.RunSpec{Name: "chat", TTFT: ttft, TPOT: 9, E2EL: 2000, OutTokPerSec: 1000, ReqPerSec: 4, Seed: seed})
		var blocks []results.Block
		for k := range 8 {
			r := comparetest.MakeRun(comparetest.RunSpec{Name: "chat", TTFT: ttft, TPOT: 9, E2EL: 2000, OutTokPerSec: 1000, ReqPerSec: 4, N: 25, Seed: 1000*seed + 10*uint64(k) + offset})
			start := comparetest.Epoch.Add(time.Duration(2*k+int(offset)) * time.Minute)
			blocks = append(blocks, results.Block{Pair: k, Slot: 2*k + int(offset), Status: results.StatusOK, Started: start, Finished: start.Add(time.Minute), Summary: r.Summary, Samples: r.Samples})
		}
		run := &f.Runs[0]
		run.Blocks = blocks
		run.Summary, run.Samples = results.MergeBlocks(blocks)
		f.AB = &results.AB{Side: name, Schedule: strings.Repeat("AB", 8)}
		return f
	}
	return side(results.SideBaseline, 100, 0), side(results.SideCandidate, 100*scale, 1)
}

// writeAB writes the two sides of an A/B job as llmgate run --ab-var does:
// name.json the candidate, name.baseline.json beside it.
func writeAB(t *testing.T, dir, name string, base, cand *results.File) string {
	t.Helper()
	path := filepath.Join(dir, name+".json")
	base.AB.Pair, cand.AB.Pair = filepath.Base(path), name+".baseline.json"
	if err := results.WriteFile(results.ABBaselinePath(path), base); err != nil {
		t.Fatal(err)
	}
	if err := results.WriteFile(path, cand); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCompareRerunAB checks that compare --rerun on the two sides of an
// A/B job confirms them as an A/B job is confirmed, over the block pairs
// of both jobs (the rerun's baseline side read from beside it), not by an
// unpaired test of the rerun against the first job's baseline side; and
// that a rerun which is not an A/B candidate side is refused.
func TestCompareRerunAB(t *testing.T) {
	dir := t.TempDir()
	cfg := compare.DefaultConfig()
	var first string
	for seed := uint64(1); seed < 300 && first == ""; seed++ {
		b, c := abSides(seed, 1.11)
		if r := compare.Compare(b, c, cfg).Rows[0]; r.Metric.Name == "ttft.p95" && r.Verdict == compare.Inconclusive && r.Rerun {
			first = writeAB(t, dir, "results", b, c)
		}
	}
	if first == "" {
		t.Fatal("no A/B job near the band was left inconclusive")
	}
	rb, rc := abSides(999, 1.3)
	rerun := writeAB(t, dir, "rerun", rb, rc)
	js := filepath.Join(dir, "verdicts.json")
	code, stdout, stderr := runCLI(t, "compare", results.ABBaselinePath(first), first, "--rerun", rerun, "--json", js)
	if code != exitGate {
		t.Fatalf("exit %d, want %d (the A/B rerun is 30%% slower)\n%s\n%s", code, exitGate, stdout, stderr)
	}
	// report judges the A/B pair and its rerun as compare does: one verdict.
	want := verdictOf(t, "compare", stdout)
	_, rstdout, rstderr := runCLI(t, "report", first, "--baseline", results.ABBaselinePath(first), "--rerun", rerun, "-o", filepath.Join(dir, "report.html"))
	if got := verdictOf(t, "report", rstdout); got != want {
		t.Errorf("report of the A/B pair with its rerun: %q, compare %q\n%s", got, want, rstderr)
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Design string `json:"design"`
		Rows   []struct {
			Metric  string `json:"metric"`
			Verdict string `json:"verdict"`
			Test    string `json:"test"`
			N1      int    `json:"n1"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	if r := v.Rows[0]; v.Design != "paired" || r.Metric != "ttft.p95" || r.Verdict != "regression" || !strings.Contains(r.Test, "block") || r.N1 != 16 {
		t.Errorf("design %s, row %+v: want a regression tested over the 16 block pairs of both jobs", v.Design, r)
	}
	plain := writeResults(t, dir, "plain.json", 100, 7, false)
	if code, _, stderr := runCLI(t, "compare", results.ABBaselinePath(first), first, "--rerun", plain); code != exitUsage || !strings.Contains(stderr, "candidate side") {
		t.Errorf("a plain file as the A/B rerun: exit %d, %s; want 2 saying what --rerun takes", code, stderr)
	}
}
