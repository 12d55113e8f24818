package load

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
)

// stageCounts counts the measured records of each stage, and the warmup
// ones (stage 0).
func stageCounts(recs []results.Record) map[int]int {
	out := map[int]int{}
	for _, r := range recs {
		if r.Warmup && r.Stage != 0 {
			return map[int]int{-1: r.Seq} // a warmup request in a stage
		}
		out[r.Stage]++
	}
	return out
}

func TestRunStagesSendTheirRequests(t *testing.T) {
	f := newFakeServer(t)
	cfg := Config{Load: runspec.Load{
		Warmup:   3,
		Workload: runspec.Workload{Kind: runspec.WorkloadRandom, InputTokens: 8, OutputTokens: 3},
		Stages: []runspec.Stage{
			{Concurrency: 2, Requests: 30},
			{Rate: 200, Concurrency: 4, Requests: 40},
		},
	}, BaseURL: f.URL(), Model: "m"}
	res, err := Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := stageCounts(res.Records)
	if got[1] != 30 || got[2] != 40 || got[0] < 3 || len(got) != 3 {
		t.Fatalf("records by stage %v, want at least 3 warmup (0), then 30 and 40", got)
	}
	if n := len(f.seen()); n != len(res.Records) {
		t.Fatalf("the server received %d requests, the run recorded %d", n, len(res.Records))
	}
	// stage 2 starts after stage 1's last request ended (a closed loop
	// ends when its users do), and its indexes follow stage 1's
	var end1, start2 time.Duration
	idx := map[int]bool{}
	for _, r := range res.Records {
		switch r.Stage {
		case 1:
			end1 = max(end1, r.Finished)
		case 2:
			if start2 == 0 || r.Sent < start2 {
				start2 = r.Sent
			}
		}
		if !r.Warmup {
			idx[r.Index] = true
		}
	}
	if start2 < end1 || len(idx) != 70 {
		t.Fatalf("stage 2's first send at %v, stage 1's last end at %v; %d distinct indexes of 70", start2, end1, len(idx))
	}
	a, h := res.Analyze(cfg, results.SummarizeOptions{})
	if a.Summary.Requests.Completed != 70 || len(a.Summary.Parts) != 2 {
		t.Fatalf("the run's summary covers %d requests in %d parts, want 70 in 2", a.Summary.Requests.Completed, len(a.Summary.Parts))
	}
	for _, u := range h.Unchecked {
		if !strings.HasPrefix(u, "stage ") {
			t.Fatalf("unchecked %q names no stage", u)
		}
	}
}

func TestRunStagesByDurationKeepTheirRates(t *testing.T) {
	if testing.Short() {
		t.Skip("two real-time stages of a second each")
	}
	f := newFakeServer(t)
	cfg := Config{Load: runspec.Load{
		Workload: runspec.Workload{Kind: runspec.WorkloadRandom, InputTokens: 8, OutputTokens: 3},
		Stages: []runspec.Stage{
			{Rate: 20, Duration: time.Second},
			{Rate: 60, Duration: time.Second},
		},
	}, BaseURL: f.URL(), Model: "m"}
	res, err := Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := stageCounts(res.Records)
	// sends are planned at constant gaps from each stage's first: a
	// stage of 1 s at R/s plans exactly R of them, however late they go
	if got[1] != 20 || got[2] != 60 {
		t.Fatalf("records by stage %v, want 20 and 60", got)
	}
	a, h := res.Analyze(cfg, results.SummarizeOptions{})
	for i, want := range []float64{20, 60} {
		p := a.Summary.Part(results.StageRef(i + 1))
		rate := p.Summary.Client.AchievedRate
		// within 15%: a loaded two-core machine under -race sends late by
		// milliseconds, not by a tenth of a second over a second
		if rate < 0.85*want || rate > 1.15*want {
			t.Fatalf("stage %d achieved %.1f req/s, planned %.0f", i+1, rate, want)
		}
		t.Logf("stage %d: %d requests, achieved %.2f req/s (planned %.0f), lag p99 %.2f ms", i+1, got[i+1], rate, want, p.Summary.Client.ScheduleLagP99)
	}
	if len(h.Problems) > 0 {
		t.Fatalf("self-check problems: %v", h.Problems)
	}
}

func TestStageSelfCheckJudgesEachStage(t *testing.T) {
	f := newFakeServer(t, func(f *fakeServer) { f.ttft = 20 * time.Millisecond })
	cfg := Config{Load: runspec.Load{
		Workload: runspec.Workload{Kind: runspec.WorkloadRandom, InputTokens: 8, OutputTokens: 2},
		Stages: []runspec.Stage{
			{Rate: 20, Requests: 5},
			// one request in flight at a time of 20 ms each: about 50/s
			// of the 200/s planned
			{Rate: 200, Concurrency: 1, Requests: 15},
		},
	}, BaseURL: f.URL(), Model: "m"}
	res, err := Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, h := res.Analyze(cfg, results.SummarizeOptions{})
	// stage 2 sends too slowly, and each problem names its stage
	rate := false
	for _, p := range h.Problems {
		if !strings.HasPrefix(p, "stage 1: ") && !strings.HasPrefix(p, "stage 2: ") {
			t.Fatalf("problem %q names no stage", p)
		}
		rate = rate || strings.HasPrefix(p, "stage 2: achieved rate")
	}
	if !rate {
		t.Fatalf("problems %q, want stage 2's achieved rate among them", h.Problems)
	}
}

func TestValidateStages(t *testing.T) {
	cfg := Config{Load: runspec.Load{Rate: 3,
		Workload: runspec.Workload{Kind: runspec.WorkloadRandom, InputTokens: 8, OutputTokens: 2},
		Stages:   []runspec.Stage{{Rate: 1}, {Requests: 4}},
	}, BaseURL: "http://127.0.0.1:1"}
	err := cfg.Validate()
	for _, want := range []string{"the load sets none", "stage 1: set requests or duration", "stage 2: set concurrency"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v, want it to say %q", err, want)
		}
	}
}

func TestRunStagesOfAConversation(t *testing.T) {
	f := newFakeServer(t)
	cfg := Config{Load: runspec.Load{
		Workload: runspec.Workload{Kind: runspec.WorkloadConversation, InputTokens: 8, OutputTokens: 3, Turns: 2},
		Stages:   []runspec.Stage{{Concurrency: 2, Requests: 10}, {Rate: 100, Requests: 10}},
	}, BaseURL: f.URL(), Model: "m"}
	res, err := Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, later := stageCounts(res.Records), 0
	for _, r := range res.Records {
		if r.Turn > 0 {
			later++
		}
	}
	if got[1] != 10 || got[2] != 10 || later == 0 {
		t.Fatalf("records by stage %v, %d later turns: want 10 and 10, some past their first turn", got, later)
	}
}
