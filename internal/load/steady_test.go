package load

import (
	"cmp"
	"context"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
)

// The measured phase starts from a running loop: warmup requests are still
// in flight when the first measured ones are sent, and the users' first
// measured sends are spread out by their differing answers instead of being
// released together.
func TestMeasuredPhaseStartsFromARunningLoop(t *testing.T) {
	f := newFakeServer(t, func(f *fakeServer) { f.ttft, f.itl = 5*time.Millisecond, 2*time.Millisecond })
	cfg := Config{
		Load: runspec.Load{
			Concurrency: 8,
			Requests:    32,
			Warmup:      8,
			Workload:    runspec.Workload{Kind: runspec.WorkloadRandom, InputTokens: 8, OutputTokens: 16, RangeRatio: 0.5},
		},
		BaseURL: f.URL(),
		Model:   "m",
		RunName: "steady",
	}
	res, err := Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	var firstMeasured time.Duration = -1
	var measured []time.Duration
	for _, r := range res.Records {
		if !r.Warmup {
			measured = append(measured, r.Sent)
			if firstMeasured < 0 || r.Sent < firstMeasured {
				firstMeasured = r.Sent
			}
		}
	}
	overlap := 0
	for _, r := range res.Records {
		if r.Warmup && r.Finished > firstMeasured {
			overlap++
		}
	}
	sort.Slice(measured, func(i, j int) bool { return measured[i] < measured[j] })
	spread := measured[cfg.Concurrency-1] - measured[0]
	t.Logf("%d warmup requests in flight at the first measured send; the first %d measured sends span %v", overlap, cfg.Concurrency, spread)
	if overlap == 0 {
		t.Error("no warmup request was in flight when the measured phase began: the loop was stopped between phases")
	}
	// answers of 8 to 24 tokens, 2 ms apart: users drift apart by tens of ms
	if spread < 5*time.Millisecond {
		t.Errorf("the first %d measured sends span only %v: users were released together", cfg.Concurrency, spread)
	}
}

// RampUp staggers the users' first requests evenly: user u starts u/n of
// the ramp after the first.
func TestRampUpStaggersUsers(t *testing.T) {
	// answers slower than the ramp, so the first four sends are the four users' first
	f := newFakeServer(t, func(f *fakeServer) { f.ttft = 150 * time.Millisecond })
	cfg := Config{
		Load: runspec.Load{
			Concurrency: 4,
			Requests:    4,
			Warmup:      4,
			RampUp:      80 * time.Millisecond,
			Workload:    runspec.Workload{Kind: runspec.WorkloadRandom, InputTokens: 8, OutputTokens: 1},
		},
		BaseURL: f.URL(),
		Model:   "m",
	}
	res, err := Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	// the users' first requests, in the order they were due (a stalled
	// machine may let a later user take the next sequence number first)
	first := slices.SortedFunc(slices.Values(res.Records[:4]), func(a, b results.Record) int { return cmp.Compare(a.Scheduled, b.Scheduled) })
	for i, r := range first {
		// the plan: user i is due i/4 of the ramp after user 0, exactly
		if got, want := r.Scheduled-first[0].Scheduled, time.Duration(i)*20*time.Millisecond; got != want {
			t.Errorf("user %d is due %v after the first, want %v", i, got, want)
		}
		// the send: never before it is due (how late depends on how busy the
		// machine is, so it is not bounded here)
		if r.Sent < r.Scheduled {
			t.Errorf("user %d sent %v before it was due", i, r.Scheduled-r.Sent)
		}
		if !r.Warmup {
			t.Errorf("user %d's first request is measured", i)
		}
	}
}
