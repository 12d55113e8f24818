package main

import (
	"flag"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/internal/runner"
	"github.com/llmgate/llmgate/results"
)

const abSuite = "testdata/ab/ab.hcl"

var abRepeat = flag.Int("ab.repeat", 0, "run TestGateABRepeated this many times per case (the issue's check uses 10)")

// abGate runs an A/B gate of the ab suite with the baseline's and the
// candidate's slowdowns and returns the exit code, both outputs and the
// results path.
func abGate(t *testing.T, base, cand string, extra ...string) (int, string, string, string) {
	t.Helper()
	gateNotActions(t)
	out := filepath.Join(t.TempDir(), "results.json")
	args := append([]string{"gate", abSuite, "-o", out, "--ab-var", "slowdown=" + base, "--var", "slowdown=" + cand}, extra...)
	code, stdout, stderr := gateCLI(t, args...)
	return code, stdout, stderr, out
}

// TestGateABSlowdown plants a 10% slower engine step on the candidate
// side: the A/B gate calls a TPOT regression (exit 1), writes both sides
// marked as one A/B job, and compare on the two files agrees.
func TestGateABSlowdown(t *testing.T) {
	fullRunOnly(t)
	code, stdout, stderr, out := abGate(t, "1", "1.1")
	if code != exitGate {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitGate, stdout, stderr)
	}
	if !strings.Contains(stdout+stderr, "A/B in one job") {
		t.Errorf("the output does not say it is an A/B in one job:\n%s\n%s", stdout, stderr)
	}
	cand, err := results.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	basePath := filepath.Join(filepath.Dir(out), "results.baseline.json")
	base, err := results.ReadFile(basePath)
	if err != nil {
		t.Fatal(err)
	}
	if cand.AB == nil || base.AB == nil || cand.AB.Schedule != "ABBABAABBAABABBA" || len(cand.Runs[0].Blocks) != 8 {
		t.Fatalf("A/B marks %+v %+v, blocks %d", cand.AB, base.AB, len(cand.Runs[0].Blocks))
	}
	code, cout, cerr := gateCLI(t, "compare", basePath, out, "--suite", abSuite)
	if code != exitGate || !strings.Contains(cout, "tpot") {
		t.Errorf("compare of the two sides: exit %d, want %d\n%s\n%s", code, exitGate, cout, cerr)
	}
}

// TestGateABSame measures the same version on both sides: the gate passes.
func TestGateABSame(t *testing.T) {
	fullRunOnly(t)
	code, stdout, stderr, _ := abGate(t, "1", "1")
	if code != exitPass {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}

// TestGateABPlansDiffer refuses an --ab-var that changes what is sent.
func TestGateABPlansDiffer(t *testing.T) {
	code, _, stderr, _ := abGate(t, "1", "1", "--ab-var", "requests=80")
	if code != exitUsage || !strings.Contains(stderr, "must be the same plan") {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitUsage, stderr)
	}
}

// TestGateABExclusiveFlags refuses a baseline file or results files
// beside --ab-var.
func TestGateABExclusiveFlags(t *testing.T) {
	for _, extra := range [][]string{{"--baseline", "b.json"}, {"--results", "r.json"}} {
		code, _, stderr, _ := abGate(t, "1", "1", extra...)
		if code != exitUsage || !strings.Contains(stderr, "takes neither --baseline nor --results") {
			t.Errorf("%v: exit %d, want %d; stderr:\n%s", extra, code, exitUsage, stderr)
		}
	}
}

// TestGateABRepeated is the end-to-end check, off by default:
// -ab.repeat 10 runs the slowed and the same A/B gate 10 times each and
// reports how often each verdict came (the slowdown must be called a
// regression ≥ 9 times, the same must pass ≥ 9 times).
func TestGateABRepeated(t *testing.T) {
	n := *abRepeat
	if n <= 0 {
		t.Skip("set -ab.repeat N to run the A/B gates N times each")
	}
	for _, c := range []struct {
		name, cand string
		want       int
	}{{"slowdown 1.1", "1.1", exitGate}, {"same", "1", exitPass}} {
		hits := 0
		codes := map[int]int{}
		for range n {
			code, _, _, _ := abGate(t, "1", c.cand)
			codes[code]++
			if code == c.want {
				hits++
			}
		}
		t.Logf("%s: %d of %d as wanted (exit %d); exit codes %v", c.name, hits, n, c.want, codes)
		if hits < n*9/10 {
			t.Errorf("%s: %d of %d as wanted, want at least %d", c.name, hits, n, n*9/10)
		}
	}
}

// TestRunAB writes both sides with `llmgate run --ab-var`: the candidate
// at -o, the baseline side beside it, each with its blocks, and says so.
func TestRunAB(t *testing.T) {
	gateNotActions(t)
	out := filepath.Join(t.TempDir(), "out.json")
	// (nothing is judged: the simulator runs ten times faster)
	code, stdout, stderr := gateCLI(t, "run", abSuite, "-o", out, "--var", "requests=40", "--var", "time_scale=0.1", "--ab-var", "slowdown=1", "--var", "slowdown=1.1")
	if code != exitPass {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "A/B in one job: baseline side") || !strings.Contains(stdout, "Baseline side written to") {
		t.Errorf("stdout does not show the baseline side:\n%s", stdout)
	}
	for path, side := range map[string]results.ABSide{out: results.SideCandidate, filepath.Join(filepath.Dir(out), "out.baseline.json"): results.SideBaseline} {
		f, err := results.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if f.AB == nil || f.AB.Side != side || len(f.Runs) != 1 || len(f.Runs[0].Blocks) != 2 || f.Runs[0].Summary.Requests.Completed != 40 || f.AB.Vars["requests"] != "40" {
			t.Errorf("%s: ab %+v, %d runs", path, f.AB, len(f.Runs))
		}
	}
}

// TestABRefusesTarget refuses --ab-var beside --target, in run and in
// gate, with one message, before anything starts (runner.ResolveAB).
func TestABRefusesTarget(t *testing.T) {
	gateNotActions(t)
	for _, cmd := range []string{"run", "gate"} {
		out := filepath.Join(t.TempDir(), "out.json")
		code, stdout, stderr := gateCLI(t, cmd, abSuite, "-o", out, "--ab-var", "slowdown=1", "--target", "http://127.0.0.1:1")
		if code != exitUsage || !strings.Contains(stderr, runner.ErrABTarget.Error()) {
			t.Errorf("%s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", cmd, code, exitUsage, stdout, stderr)
		}
	}
}
