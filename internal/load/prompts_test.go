package load

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/llmgate/llmgate/runspec"
)

// prompts runs cfg (one user, so in send order) against a fake server and
// returns each request's prompt as JSON, warmup first.
func prompts(t *testing.T, cfg Config) []string {
	t.Helper()
	f := newFakeServer(t)
	cfg.BaseURL, cfg.Model, cfg.Concurrency = f.URL(), "m", 1
	if _, err := Run(context.Background(), cfg, nil); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, b := range f.seen() {
		p := b["prompt"]
		if p == nil {
			p = b["messages"]
		}
		raw, _ := json.Marshal(p)
		out = append(out, string(raw))
	}
	return out
}

func TestPromptsNeverRepeatAcrossRunsAndPhases(t *testing.T) {
	for _, chat := range []bool{false, true} {
		t.Run(fmt.Sprintf("chat=%v", chat), func(t *testing.T) {
			wl := runspec.Workload{Kind: runspec.WorkloadRandom, InputTokens: 16, OutputTokens: 2, Chat: chat}
			a := prompts(t, Config{Load: runspec.Load{Seed: 7, Warmup: 3, Requests: 6, Workload: wl}, RunName: "sweep[c=1]"})
			// the candidate of the same run, with another warmup count
			again := prompts(t, Config{Load: runspec.Load{Seed: 7, Warmup: 1, Requests: 6, Workload: wl}, RunName: "sweep[c=1]"})
			b := prompts(t, Config{Load: runspec.Load{Seed: 7, Warmup: 3, Requests: 6, Workload: wl}, RunName: "sweep[c=4]"})

			if !slices.Equal(a[3:], again[1:]) {
				t.Errorf("the same run's measured prompts differ between two runs of it")
			}
			seen := map[string]string{}
			for i, p := range a {
				seen[p] = fmt.Sprintf("run a request %d", i)
			}
			if len(seen) != len(a) {
				t.Errorf("run a repeats prompts: %d distinct of %d (warmup and measured included)", len(seen), len(a))
			}
			for i, p := range b {
				if where, ok := seen[p]; ok {
					t.Errorf("run b request %d repeats the prompt of %s", i, where)
				}
			}
		})
	}
}

func TestPrefixWorkloadSharesOnlyThePrefix(t *testing.T) {
	wl := runspec.Workload{Kind: runspec.WorkloadPrefix, InputTokens: 8, PrefixTokens: 32, PrefixGroups: 2, OutputTokens: 2}
	ids := func(run string) [][]int {
		var out [][]int
		for _, p := range prompts(t, Config{Load: runspec.Load{Seed: 1, Warmup: 2, Requests: 6, Workload: wl}, RunName: run}) {
			var v []int
			if err := json.Unmarshal([]byte(p), &v); err != nil {
				t.Fatal(err)
			}
			out = append(out, v)
		}
		return out
	}
	a, b := ids("a"), ids("b")
	// within a run: request i of each phase uses group i mod 2
	groupOf := []int{0, 1, 0, 1, 0, 1, 0, 1}
	for i := range a {
		for j := range i {
			same := slices.Equal(a[i][:32], a[j][:32])
			if same != (groupOf[i] == groupOf[j]) {
				t.Errorf("requests %d and %d: prefixes equal = %v, want %v", j, i, same, groupOf[i] == groupOf[j])
			}
			if slices.Equal(a[i][32:], a[j][32:]) {
				t.Errorf("requests %d and %d share their suffix", j, i)
			}
		}
		for j := range b {
			if slices.Equal(a[i][:32], b[j][:32]) {
				t.Errorf("run a request %d and run b request %d share a prefix", i, j)
			}
		}
	}
}

func TestConversationSessionsAreDistinct(t *testing.T) {
	wl := runspec.Workload{Kind: runspec.WorkloadConversation, InputTokens: 8, OutputTokens: 2, Turns: 2}
	p := prompts(t, Config{Load: runspec.Load{Seed: 1, Warmup: 2, Requests: 8, Workload: wl}, RunName: "chat"})
	firsts := map[string]bool{}
	for _, raw := range p {
		var msgs []message
		if err := json.Unmarshal([]byte(raw), &msgs); err != nil {
			t.Fatal(err)
		}
		if len(msgs) == 1 {
			if firsts[msgs[0].Content] {
				t.Errorf("two sessions open with the same question %q", msgs[0].Content)
			}
			firsts[msgs[0].Content] = true
		}
	}
	if len(firsts) < 4 {
		t.Errorf("%d sessions opened, want at least 4 in 10 requests of 2 turns", len(firsts))
	}
}
