package load

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
)

// TestThinkTimeBetweenTurns runs conversations with a think time on the
// simulator, in a closed and an open loop, and checks from the records that
// no session sent a turn sooner than the think time after its previous turn
// ended, and that the sessions did go past their first turn; and that the
// summary's per-turn slices split those requests.
func TestThinkTimeBetweenTurns(t *testing.T) {
	url := startSim(t, false)
	const think = 150 * time.Millisecond
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"closed loop", Config{Load: runspec.Load{Concurrency: 2, Requests: 12}}},
		{"open loop", Config{Load: runspec.Load{Rate: 40, Requests: 24}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.BaseURL, cfg.Model, cfg.RunName = url, "llmgate/tiny-sim", tc.name
			cfg.Workload = runspec.Workload{Kind: runspec.WorkloadConversation, InputTokens: 16, OutputTokens: 4, Turns: 3, ThinkTime: think}
			res, err := Run(context.Background(), cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			bySession := map[int][]results.Record{}
			for _, r := range res.Records {
				if r.OK() {
					bySession[r.Session] = append(bySession[r.Session], r)
				}
			}
			gaps, minGap := 0, time.Duration(1<<62)
			for id, rs := range bySession {
				sort.Slice(rs, func(i, j int) bool { return rs[i].Turn < rs[j].Turn })
				for i := 1; i < len(rs); i++ {
					prev, cur := rs[i-1], rs[i]
					if cur.Turn != prev.Turn+1 {
						t.Fatalf("session %d: turns %d then %d", id, prev.Turn, cur.Turn)
					}
					gap := cur.Sent - prev.Finished
					gaps++
					minGap = min(minGap, gap)
					if gap < think {
						t.Errorf("session %d turn %d sent %v after turn %d ended, want at least the think time %v", id, cur.Turn, gap, prev.Turn, think)
					}
				}
			}
			t.Logf("%d sessions, %d turn gaps, shortest %v", len(bySession), gaps, minGap)
			if gaps < 3 {
				t.Errorf("only %d turn gaps measured: the sessions did not continue", gaps)
			}

			// the per-turn slices split the same requests: first turns are
			// the measured turn-0 requests, later turns resend the history
			// and so are longer
			turns := results.Analyze(res.Records, results.SummarizeOptions{}).Summary.Turns
			if turns == nil {
				t.Fatal("no turn slices")
			}
			first := 0
			for _, r := range res.Records {
				if !r.Warmup && r.OK() && r.Turn == 0 {
					first++
				}
			}
			if turns.First.Requests.Completed != first || turns.First.Requests.Completed+turns.Later.Requests.Completed != len(res.Records) {
				t.Errorf("turn slices count %d first and %d later of %d requests (%d first turns)", turns.First.Requests.Completed, turns.Later.Requests.Completed, len(res.Records), first)
			}
			if turns.Later.InputTokensMean <= turns.First.InputTokensMean {
				t.Errorf("later turns average %.0f input tokens, first %.0f: the history was not resent", turns.Later.InputTokensMean, turns.First.InputTokensMean)
			}
			t.Logf("first turns: %+v\nlater turns: %+v", turns.First, turns.Later)
		})
	}
}

// TestThinkTimeKeepsUsersBusy runs a closed-loop conversation whose users
// spend most of their time thinking (docs/answers.md's example, scaled
// down: 4 users, think time 200 ms against answers of a few ms) and checks
// that the self-check counts thinking users as busy: the run is not
// invalid for "mean in flight", and in flight plus thinking is about the
// concurrency.
func TestThinkTimeKeepsUsersBusy(t *testing.T) {
	url := startSim(t, false)
	cfg := Config{Load: runspec.Load{Concurrency: 4, Requests: 30}, BaseURL: url, Model: "llmgate/tiny-sim", RunName: "busy"}
	cfg.Workload = runspec.Workload{Kind: runspec.WorkloadConversation, InputTokens: 16, OutputTokens: 4, Turns: 3, ThinkTime: 200 * time.Millisecond}
	res, err := Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, h := res.Analyze(cfg, results.SummarizeOptions{})
	t.Logf("mean in flight %.2f, thinking %.2f, of %d users", h.MeanInFlight, h.MeanThinking, cfg.Concurrency)
	for _, p := range h.Problems {
		if strings.Contains(p, "in flight") {
			t.Errorf("invalid: %s", p)
		}
	}
	if busy := h.MeanInFlight + h.MeanThinking; h.MeanThinking <= h.MeanInFlight || busy < 3.6 || busy > 4.01 {
		t.Errorf("in flight %.2f + thinking %.2f = %.2f busy, want most of 4 users thinking and about 4 busy", h.MeanInFlight, h.MeanThinking, busy)
	}
}
