package diagnose_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/llmgate/llmgate/diagnose"
	"github.com/llmgate/llmgate/report"
	"github.com/llmgate/llmgate/runner"
	"github.com/llmgate/llmgate/suite"
)

// TestPlantedTraps runs one scenario per trap on the tiny simulator, with
// the trap's cause planted (a KV cache too small, a stall, a queue, prefix
// caching off, timeouts during a stall, a sweep past max-num-seqs), and
// checks that its hint fires and that the clean run has none.
func TestPlantedTraps(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the simulator")
	}
	s, diags := suite.Load("testdata/traps.hcl", suite.Options{Getenv: func(string) string { return "" }})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	f, err := runner.Run(ctx, s, runner.Options{})
	if err != nil && !strings.Contains(err.Error(), "burst") {
		t.Fatalf("run: %v", err)
	}
	want := map[string]diagnose.Kind{
		"memory":     diagnose.MemoryBound,
		"tail":       diagnose.TTFTTail,
		"queue":      diagnose.QueueBound,
		"prefix_off": diagnose.ColdPrefixCache,
		"burst":      diagnose.Errors,
		"saturated":  diagnose.Saturated, // on either doubling: see runsOf
	}
	for _, r := range f.Runs {
		t.Logf("%s: %s, ttft mean %.1f p99 %.1f ms, %d ok %d failed", r.Name, r.Status, r.Summary.TTFT.Mean, r.Summary.TTFT.P99, r.Summary.Requests.Completed, r.Summary.Requests.Failed)
	}
	got := map[string][]diagnose.Hint{}
	for _, h := range diagnose.File(f) {
		got[h.Run] = append(got[h.Run], h)
		t.Logf("%s", report.HintLine(h))
	}
	if len(got["clean"]) > 0 {
		t.Errorf("the clean run has hints: %v", got["clean"])
	}
	for run, kind := range want {
		found := false
		for name, hs := range got {
			if name != run && !strings.HasPrefix(name, run+"[") {
				continue
			}
			for _, h := range hs {
				found = found || h.Kind == kind
			}
		}
		if !found {
			t.Errorf("run %s: no %s hint among %v", run, kind, got[run])
		}
	}
	for _, h := range got["burst"] {
		if h.Kind == diagnose.Errors && !strings.Contains(h.What, "burst") {
			t.Errorf("failures during a stall not read as a burst: %s", report.HintLine(h))
		}
	}
}
