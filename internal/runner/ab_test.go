package runner

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmgate/llmgate/internal/plan"
	"github.com/llmgate/llmgate/internal/progress/event"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
)

func TestABSchedule(t *testing.T) {
	for pairs, want := range map[int]string{1: "AB", 2: "ABBA", 4: "ABBABAAB", 8: "ABBABAABBAABABBA"} {
		got := abSchedule(pairs)
		if got != want {
			t.Errorf("abSchedule(%d) = %s, want %s", pairs, got, want)
		}
		// A linear drift cancels: both sides have the same mean slot.
		var sum [2]int
		for i := range len(got) {
			sum[strings.IndexByte("AB", got[i])] += i
		}
		if pairs > 1 && sum[0] != sum[1] {
			t.Errorf("abSchedule(%d): slot sums %v differ, a linear drift would not cancel", pairs, sum)
		}
		for k := 0; k+1 < len(got); k += 2 {
			if got[k] == got[k+1] {
				t.Errorf("abSchedule(%d): pair %d is %c%c, not one block of each side", pairs, k/2, got[k], got[k+1])
			}
		}
	}
}

func TestBlockLoad(t *testing.T) {
	cfg := runspec.Load{Requests: 10, Warmup: 3, Seed: 5}
	total := 0
	for pair := range 4 {
		c := blockLoad(cfg, 4, pair, pair == 0)
		total += c.Requests
		if (c.Warmup != 0) != (pair == 0) {
			t.Errorf("pair %d warmup = %d", pair, c.Warmup)
		}
		if c.Seed != 5+int64(pair)*blockSeedStride {
			t.Errorf("pair %d seed = %d", pair, c.Seed)
		}
	}
	if total != 10 {
		t.Errorf("blocks hold %d requests, want 10", total)
	}
}

// TestBlockLoadTrace: each block of a trace's A/B run replays the rows
// after the blocks before it, its warmup (when fresh) just before its own.
func TestBlockLoadTrace(t *testing.T) {
	cfg := runspec.Load{Requests: 10, Warmup: 3, Workload: runspec.Workload{Kind: runspec.WorkloadTrace}}
	// blocks of 3, 3, 2, 2 requests after 3 warmup rows: measured rows
	// start at 3, 6, 9 and 11
	for _, c := range []struct {
		pair     int
		warm     bool
		skip     int
		requests int
	}{{0, true, 0, 3}, {1, false, 6, 3}, {2, true, 6, 2}, {3, false, 11, 2}} {
		b := blockLoad(cfg, 4, c.pair, c.warm)
		if b.Workload.TraceSkip != c.skip || b.Requests != c.requests || b.Workload.TraceSkip+b.Warmup != []int{3, 6, 9, 11}[c.pair] {
			t.Errorf("pair %d: skip %d, warmup %d, requests %d; want skip %d and %d requests", c.pair, b.Workload.TraceSkip, b.Warmup, b.Requests, c.skip, c.requests)
		}
	}
	byTime := runspec.Load{Duration: 40 * time.Second, Workload: runspec.Workload{Kind: runspec.WorkloadTrace, TimeScale: 2, TraceStart: time.Second}}
	if b := blockLoad(byTime, 4, 3, false); b.Duration != 10*time.Second || b.Workload.TraceStart != 61*time.Second {
		t.Errorf("pair 3 by time: duration %v from %v, want 10s from 61s of the trace (1 s + 3 × 10 s × 2)", b.Duration, b.Workload.TraceStart)
	}
}

func TestCheckABPlans(t *testing.T) {
	base := loadSuite(t, "ab.hcl", map[string]string{"slowdown": "1"})
	same := loadSuite(t, "ab.hcl", map[string]string{"slowdown": "2"})
	if err := CheckABPlans(same.Plan(), base.Plan()); err != nil {
		t.Errorf("a plan differing only in the server's args is refused: %v", err)
	}
	other := loadSuite(t, "ab.hcl", map[string]string{"requests": "30"})
	err := CheckABPlans(other.Plan(), base.Plan())
	if !errors.Is(err, ErrABPlans) || !strings.Contains(err.Error(), "run chat has another workload or load") {
		t.Errorf("plans with other loads: err = %v", err)
	}
}

// TestRunABSimulator runs both sides against the in-process simulator,
// the candidate 50% slower per engine step, and checks the layout (two
// files marking each other, the schedule, blocks), that both blocks of
// each pair got the same prompts (the same input tokens), each side's own
// warmup, and that the candidate's TPOT is the slower.
func TestRunABSimulator(t *testing.T) {
	base := loadSuite(t, "ab.hcl", map[string]string{"slowdown": "1"})
	cand := loadSuite(t, "ab.hcl", map[string]string{"slowdown": "1.5"})
	out := filepath.Join(t.TempDir(), "results.json")
	rec := &recorder{}
	cf, bf, err := RunAB(context.Background(), cand, Options{OutputPath: out, Progress: rec},
		ABOptions{Baseline: base, BaselineVars: map[string]string{"slowdown": "1"}, CandidateVars: map[string]string{"slowdown": "1.5"}})
	if err != nil {
		t.Fatalf("RunAB: %v", err)
	}
	cdisk, bdisk := readBack(t, out), readBack(t, filepath.Join(filepath.Dir(out), "results.baseline.json"))
	if cdisk.AB == nil || bdisk.AB == nil || cdisk.AB.Side != results.SideCandidate || bdisk.AB.Side != results.SideBaseline ||
		cdisk.AB.Pair != "results.baseline.json" || bdisk.AB.Pair != "results.json" || cdisk.AB.Schedule != "ABBA" {
		t.Fatalf("A/B marks: candidate %+v, baseline %+v", cdisk.AB, bdisk.AB)
	}
	if cdisk.AB.Modes["sim"] != plan.ABTogether || bdisk.AB.Vars["slowdown"] != "1" {
		t.Errorf("modes %v, baseline vars %v", cdisk.AB.Modes, bdisk.AB.Vars)
	}
	if cf.Partial || bf.Partial || len(cdisk.Runs) != 1 || len(bdisk.Runs) != 1 {
		t.Fatalf("files: partial %v %v, runs %d %d", cf.Partial, bf.Partial, len(cdisk.Runs), len(bdisk.Runs))
	}
	cr, br := cdisk.Runs[0], bdisk.Runs[0]
	for _, r := range []results.Run{cr, br} {
		if r.Status != results.StatusOK || r.Summary.Requests.Completed != 40 || len(r.Blocks) != 2 || len(r.Samples.TPOT) != 40 || len(r.Asserts) != 1 {
			t.Fatalf("run %s: status %s %v %s, %d completed, %d blocks, asserts %v", r.Name, r.Status, r.InvalidReasons, r.Error, r.Summary.Requests.Completed, len(r.Blocks), r.Asserts)
		}
	}
	// quantile buckets: the whole run's edges, the same on both sides
	if be, ce := br.Load.LengthBuckets, cr.Load.LengthBuckets; len(be) != 1 || !slices.Equal(be, ce) {
		t.Errorf("quantile edges %v on the baseline side, %v on the candidate: want one edge, the same", be, ce)
	}
	for _, r := range []results.Run{br, cr} {
		q1, q2 := r.Summary.LengthBucket("q1"), r.Summary.LengthBucket("q2")
		if q1 == nil || q2 == nil || q1.Requests.Completed+q2.Requests.Completed != 40 || q1.MaxInputTokens != r.Load.LengthBuckets[0] {
			t.Errorf("%s side buckets %+v, want q1 and q2 splitting its 40 requests at %v", r.Name, r.Summary.LengthBuckets, r.Load.LengthBuckets)
		}
	}
	wantSlots := [2][]int{{0, 3}, {1, 2}} // ABBA: baseline in slots 0 and 3
	for side, r := range []results.Run{br, cr} {
		for i, b := range r.Blocks {
			if b.Slot != wantSlots[side][i] || b.Pair != i || b.Summary.Requests.Completed != 20 {
				t.Errorf("%s block %d: slot %d pair %d, %d requests", r.Name, i, b.Slot, b.Pair, b.Summary.Requests.Completed)
			}
		}
	}
	for i := range cr.Blocks {
		bi, ci := br.Blocks[i].Summary.InputTokens, cr.Blocks[i].Summary.InputTokens
		if bi != ci || bi == 0 {
			t.Errorf("pair %d: input tokens %d on the baseline side, %d on the candidate: not the same prompts", i, bi, ci)
		}
	}
	if br.Blocks[0].Summary.InputTokens == br.Blocks[1].Summary.InputTokens {
		t.Errorf("both pairs sent %d input tokens: the pairs should have their own prompts", br.Blocks[0].Summary.InputTokens)
	}
	// Warmup: only in the first block of each side, 2 asked for and at
	// least one per user, so 4 to 8 warmup requests beside 80 measured
	// (a warmup in every block would be 8 to 16).
	n := rec.count()
	measured := 0
	rec.mu.Lock()
	for _, e := range rec.events {
		if d, ok := e.(event.RequestDone); ok && !d.Record.Warmup {
			measured++
		}
	}
	rec.mu.Unlock()
	if warm := n["request"] - measured; measured != 80 || warm < 4 || warm > 8 {
		t.Errorf("%d measured and %d warmup requests, want 80 and 4 to 8", measured, warm)
	}
	if n["starting"] != 2 || n["stopped"] != 2 {
		t.Errorf("events %v: want 2 servers started and stopped", n)
	}
	if cr.Load == nil || cr.Load.Requests != 40 || cr.Requests == nil || cr.Requests.Len() != 40 {
		t.Errorf("candidate's load %+v and request log: want the whole run's (40 requests)", cr.Load)
	}
	if cr.Summary.TPOT.P50 <= br.Summary.TPOT.P50 {
		t.Errorf("TPOT p50: candidate %.2f ms, baseline %.2f ms: the 1.5× slowdown does not show", cr.Summary.TPOT.P50, br.Summary.TPOT.P50)
	}
	assertStopped(t, rec.serverURLs())
}

// TestABMode: a group whose sides are of different kinds takes a server
// container's mode when either side is one, else stays together.
func TestABMode(t *testing.T) {
	s := &plan.Suite{AB: plan.ABCrossover}
	for _, c := range []struct {
		base, cand runspec.TargetKind
		want       plan.ABMode
	}{
		{runspec.KindServer, runspec.KindServer, plan.ABCrossover},
		{runspec.KindServer, runspec.KindEndpoint, plan.ABCrossover},
		{runspec.KindSimulator, runspec.KindServer, plan.ABCrossover},
		{runspec.KindSimulator, runspec.KindEndpoint, plan.ABTogether},
		{runspec.KindSimulator, runspec.KindSimulator, plan.ABTogether},
	} {
		if got := abMode(s, c.base, c.cand); got != c.want {
			t.Errorf("abMode(%s, %s) = %s, want %s", c.base, c.cand, got, c.want)
		}
	}
}
