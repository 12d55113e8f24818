package load

import (
	"context"
	"slices"
	"testing"

	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
)

// TestLengthBucketsOnSimulator runs prompts of widely spread lengths on the
// simulator and checks that the input-length buckets of the summary hold
// exactly the requests whose server-counted length falls in each.
func TestLengthBucketsOnSimulator(t *testing.T) {
	url := startSim(t, false)
	edges := []int{120, 200, 280}
	cfg := Config{
		Load: runspec.Load{
			Concurrency: 4,
			Requests:    40,
			Workload:    runspec.Workload{Kind: runspec.WorkloadRandom, InputTokens: 200, OutputTokens: 4, RangeRatio: 0.8, LengthBuckets: edges},
		},
		BaseURL: url,
		Model:   "llmgate/tiny-sim",
		RunName: "buckets",
	}
	res, err := Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	buckets := results.Analyze(res.Records, results.SummarizeOptions{LengthBuckets: edges}).Summary.LengthBuckets
	if len(buckets) != len(edges)+1 {
		t.Fatalf("%d buckets, want %d", len(buckets), len(edges)+1)
	}
	want := make([]int, len(edges)+1)
	for _, r := range res.Records {
		if r.Warmup || !r.OK() {
			continue
		}
		b := 0
		for b < len(edges) && r.InputTokens >= edges[b] {
			b++
		}
		want[b]++
	}
	for i, b := range buckets {
		t.Logf("%-12s %2d requests, mean input %.0f, TTFT p50 %.2fms", b.Label, b.Requests.Completed, b.InputTokensMean, b.TTFT.P50)
		if b.Requests.Completed != want[i] {
			t.Errorf("bucket %s holds %d requests, want %d", b.Label, b.Requests.Completed, want[i])
		}
		if b.Requests.Completed == 0 {
			t.Errorf("bucket %s is empty: the spread of lengths did not reach it", b.Label)
			continue
		}
		if b.InputTokensMean < float64(b.MinInputTokens) || (b.MaxInputTokens > 0 && b.InputTokensMean >= float64(b.MaxInputTokens)) {
			t.Errorf("bucket %s has mean input %.0f outside its bounds", b.Label, b.InputTokensMean)
		}
	}
}

// TestResolveLengthBuckets checks that quantile edges come from the lengths
// the run actually asks for: the same edges on every call (a baseline and
// its candidate), a quarter of the measured requests below the first of
// four quartile edges, and other edges for another run name.
func TestResolveLengthBuckets(t *testing.T) {
	url := startSim(t, false)
	cfg := Config{BaseURL: url, Model: "llmgate/tiny-sim", RunName: "quartiles", Load: runspec.Load{Concurrency: 4, Requests: 80, Warmup: 3,
		Workload: runspec.Workload{Kind: runspec.WorkloadRandom, InputTokens: 200, OutputTokens: 2, RangeRatio: 0.9, LengthQuantiles: 4}}}
	got, err := ResolveLengthBuckets(cfg)
	if err != nil {
		t.Fatal(err)
	}
	edges := got.Workload.LengthBuckets
	if len(edges) != 3 || edges[0] >= edges[1] || edges[1] >= edges[2] {
		t.Fatalf("edges %v, want three increasing quartile edges", edges)
	}
	again, _ := ResolveLengthBuckets(cfg)
	if !slices.Equal(again.Workload.LengthBuckets, edges) {
		t.Errorf("edges %v then %v: not deterministic", edges, again.Workload.LengthBuckets)
	}
	other := cfg
	other.RunName = "another run"
	if o, _ := ResolveLengthBuckets(other); slices.Equal(o.Workload.LengthBuckets, edges) {
		t.Errorf("run %q got the same edges %v as %q", other.RunName, edges, cfg.RunName)
	}

	res, err := Run(context.Background(), got, nil)
	if err != nil {
		t.Fatal(err)
	}
	var below, measured int
	for _, r := range res.Records {
		if r.Warmup {
			continue
		}
		measured++
		if r.RequestedInputTokens < edges[0] {
			below++
		}
	}
	if measured != 80 || below != 20 {
		t.Errorf("%d of %d measured requests asked for fewer than %d tokens, want 20 of 80", below, measured, edges[0])
	}

	conv := cfg
	conv.Workload.Kind, conv.Workload.Turns = runspec.WorkloadConversation, 2
	if _, err := ResolveLengthBuckets(conv); err == nil {
		t.Error("quantile buckets of a conversation workload: no error")
	}
}
