package load

import (
	"context"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
)

// mixConfig is a 3:1 mix of a random chat-like member (answers of 4
// tokens) and a prefix member (answers of 6), n measured requests on a
// closed loop of 8 users, seeded by seed.
func mixConfig(url string, n int, seed int64) Config {
	chat := runspec.Workload{Kind: runspec.WorkloadRandom, InputTokens: 8, OutputTokens: 4}
	rag := runspec.Workload{Kind: runspec.WorkloadPrefix, InputTokens: 16, OutputTokens: 6, PrefixTokens: 8, PrefixGroups: 2}
	return Config{Load: runspec.Load{
		Concurrency: 8, Requests: n, Seed: seed, Workload: chat,
		Mix: []runspec.MixMember{{Name: "chat", Weight: 3, Workload: chat}, {Name: "rag", Weight: 1, Workload: rag}},
	}, BaseURL: url, Model: "m", RunName: "mixed"}
}

// membersByIndex is each measured record's member, by its index.
func membersByIndex(t *testing.T, recs []results.Record, n int) []string {
	t.Helper()
	out := make([]string, n)
	for _, r := range recs {
		if !r.Warmup {
			out[r.Index] = r.Member
		}
	}
	return out
}

func TestRunMixSendsItsWeights(t *testing.T) {
	f := newFakeServer(t)
	const n = 400
	res, err := Run(context.Background(), mixConfig(f.URL(), n, 21), nil)
	if err != nil {
		t.Fatal(err)
	}
	// what the server received: each member by its answer length
	got := map[float64]int{}
	for _, b := range f.seen() {
		got[b["max_tokens"].(float64)]++
	}
	chat, rag := got[4], got[6]
	if chat+rag != n || len(got) != 2 {
		t.Fatalf("the server received %v (max_tokens: count), want %d requests of 4 or 6 tokens", got, n)
	}
	// 3:1 of 400 is 300 chat requests; a fair draw lands within 4.5
	// standard deviations (sqrt(400 x 3/4 x 1/4) = 8.7) of it
	if chat < 261 || chat > 339 {
		t.Fatalf("the server received %d chat and %d rag requests, not near 3:1", chat, rag)
	}
	t.Logf("3:1 mix, seed 21, %d requests: the server received %d chat and %d rag (%.2f:1)", n, chat, rag, float64(chat)/float64(rag))
	// each record names the member the server saw
	recs := map[string]int{}
	for _, r := range res.Records {
		recs[r.Member]++
		if want := map[string]int{"chat": 4, "rag": 6}[r.Member]; r.OK() && r.OutputTokens != want {
			t.Fatalf("record %d of member %q has %d output tokens, want %d", r.Seq, r.Member, r.OutputTokens, want)
		}
	}
	if recs["chat"] != chat || recs["rag"] != rag {
		t.Fatalf("records name %v, the server saw %d chat and %d rag", recs, chat, rag)
	}
	a := results.Analyze(res.Records, results.SummarizeOptions{})
	if p := a.Summary.Part(results.MemberRef("rag")); p == nil || p.Summary.Requests.Completed != rag || p.Summary.OutputTokens != int64(6*rag) {
		t.Fatalf("the rag member's summary %+v, want its %d requests of 6 tokens", p, rag)
	}
}

func TestRunMixDrawsAlikeForOneSeed(t *testing.T) {
	f := newFakeServer(t)
	const n = 120
	var draws [3][]string
	for i, seed := range []int64{5, 5, 6} {
		res, err := Run(context.Background(), mixConfig(f.URL(), n, seed), nil)
		if err != nil {
			t.Fatal(err)
		}
		draws[i] = membersByIndex(t, res.Records, n)
	}
	differ := 0
	for i := range n {
		if draws[0][i] != draws[1][i] {
			t.Fatalf("request %d drew %q in one run and %q in the other, with the same seed", i, draws[0][i], draws[1][i])
		}
		if draws[0][i] != draws[2][i] {
			differ++
		}
	}
	if differ == 0 {
		t.Fatal("seeds 5 and 6 drew the same members for every request")
	}
}

func TestValidateMix(t *testing.T) {
	cfg := mixConfig("http://127.0.0.1:1", 10, 1)
	cfg.Mix[1].Name = "chat"
	cfg.Mix[0].Weight = 0
	cfg.Mix = append(cfg.Mix, runspec.MixMember{Name: "t", Weight: 1, Workload: runspec.Workload{Kind: runspec.WorkloadTrace}})
	err := cfg.Validate()
	for _, want := range []string{`"chat" is declared twice`, "weight 0 must be above 0", "trace workload can't be mixed"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v, want it to say %q", err, want)
		}
	}
}
