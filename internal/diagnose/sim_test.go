package diagnose_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/llmgate/llmgate/internal/diagnose"
	"github.com/llmgate/llmgate/internal/report"
	"github.com/llmgate/llmgate/internal/runner"
	"github.com/llmgate/llmgate/internal/suite"
)

// TestPlantedTraps runs one scenario per trap on the simulator, with the
// trap's cause planted (a KV cache too small, a stall, a queue, prefix
// caching off, long prompts prefilled in small chunks, timeouts during a
// stall, a sweep past max-num-seqs, broken structured answers, answers cut
// off at max_tokens, a sweep whose steps grow with the batch), and checks
// that its hint fires and that the clean runs have none.
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
	f, err := runner.Run(ctx, s.Runnable(), runner.Options{})
	if err != nil && !strings.Contains(err.Error(), "burst") {
		t.Fatalf("run: %v", err)
	}
	want := map[string]diagnose.Kind{
		"memory":       diagnose.MemoryBound,
		"tail":         diagnose.TTFTTail,
		"queue":        diagnose.QueueBound,
		"prefill":      diagnose.PrefillBound,
		"prefix_off":   diagnose.ColdPrefixCache,
		"burst":        diagnose.Errors,
		"saturated":    diagnose.Saturated, // on either doubling: see runsOf
		"invalid_json": diagnose.InvalidOutput,
		"cut_json":     diagnose.InvalidOutput,
		"batch_growth": diagnose.TPOTGrowth,
	}
	for _, r := range f.Runs {
		t.Logf("%s: %s %q, %.1f s, ttft mean %.1f p99 %.1f ms, tpot p50 %.1f ms, %d ok %d failed", r.Name, r.Status, r.InvalidReasons, r.Summary.DurationSeconds, r.Summary.TTFT.Mean, r.Summary.TTFT.P99, r.Summary.TPOT.P50, r.Summary.Requests.Completed, r.Summary.Requests.Failed)
	}
	got := map[string][]diagnose.Hint{}
	for _, h := range diagnose.File(f) {
		got[h.Run] = append(got[h.Run], h)
		t.Logf("%s", report.HintLine(h))
	}
	for _, clean := range []string{"clean", "structured_clean"} {
		if len(got[clean]) > 0 {
			t.Errorf("the clean run %s has hints: %v", clean, got[clean])
		}
	}
	// The clean batch sweep is the planted one without --per-seq-overhead:
	// TPOT must not grow steeply.
	for name, hs := range got {
		for _, h := range hs {
			if strings.HasPrefix(name, "batch_clean[") && h.Kind == diagnose.TPOTGrowth {
				t.Errorf("the clean batch sweep has a TPOT growth hint: %s", report.HintLine(h))
			}
		}
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
	for _, h := range got["invalid_json"] {
		if h.Kind == diagnose.InvalidOutput && (len(h.Evidence) != 1 || h.Evidence[0].Name != "structured.valid_rate" || h.Evidence[0].Value <= 0.5 || h.Evidence[0].Value >= 0.95) {
			t.Errorf("invalid structured output: evidence %v, want structured.valid_rate between 0.5 and 0.95 (about a quarter broken)", h.Evidence)
		}
	}
	for _, h := range got["cut_json"] {
		cut := 0.0
		for _, e := range h.Evidence {
			if e.Name == "invalid answers cut off at max_tokens" {
				cut = e.Value
			}
		}
		if h.Kind == diagnose.InvalidOutput && (cut != 20 || !strings.Contains(h.Next, "raise output_tokens")) {
			t.Errorf("answers cut off at max_tokens: %s, want all 20 counted as cut off", report.HintLine(h))
		}
	}
	for name, hs := range got {
		for _, h := range hs {
			if h.Kind != diagnose.TPOTGrowth || !strings.HasPrefix(name, "batch_growth[") {
				continue
			}
			ev := h.Evidence
			if len(ev) != 4 || ev[0].Name != "concurrency" || ev[0].Value != 4 || ev[2].Name != "concurrency" || ev[2].Value != 8 ||
				ev[1].Name != "tpot.p50" || ev[3].Name != "tpot.p50" || ev[3].Value <= diagnose.SteepTPOT*ev[1].Value {
				t.Errorf("TPOT growth: evidence %v, want concurrency 4 and 8 with tpot.p50 growing more than %g×", ev, diagnose.SteepTPOT)
			}
		}
	}
	for _, h := range got["burst"] {
		if h.Kind == diagnose.Errors && !strings.Contains(h.What, "burst") {
			t.Errorf("failures during a stall not read as a burst: %s", report.HintLine(h))
		}
	}
}
