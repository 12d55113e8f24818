package load

import (
	"context"
	"sort"
	"testing"
	"time"
)

// The measured phase starts from a running loop: warmup requests are still
// in flight when the first measured ones are sent, and the users' first
// measured sends are spread out by their differing answers instead of being
// released together.
func TestMeasuredPhaseStartsFromARunningLoop(t *testing.T) {
	f := newFakeServer(t, func(f *fakeServer) { f.ttft, f.itl = 5*time.Millisecond, 2*time.Millisecond })
	cfg := Config{BaseURL: f.URL(), Model: "m", Concurrency: 8, Requests: 32, Warmup: 8, RunName: "steady",
		Workload: Workload{Kind: WorkloadRandom, InputTokens: 8, OutputTokens: 16, RangeRatio: 0.5}}
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
	cfg := Config{BaseURL: f.URL(), Model: "m", Concurrency: 4, Requests: 4, Warmup: 4, RampUp: 80 * time.Millisecond,
		Workload: Workload{Kind: WorkloadRandom, InputTokens: 8, OutputTokens: 1}}
	res, err := Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res.Records[:4] {
		want := time.Duration(i) * 20 * time.Millisecond
		// never early; late by at most what a busy two-core machine under
		// -race delays a timer (the users' first answers take 150 ms)
		if got := r.Sent - res.Records[0].Sent; got < want-time.Millisecond || got > want+100*time.Millisecond {
			t.Errorf("user %d started %v after the first, want %v", i, got, want)
		}
		if !r.Warmup {
			t.Errorf("user %d's first request is measured", i)
		}
	}
}
