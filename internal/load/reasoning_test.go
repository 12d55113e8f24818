package load

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/llmgate/llmgate/internal/fakeserver"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
)

// reasoningRun runs n chat requests of out tokens, one at a time, against a
// fake vLLM whose answers reason for 10 tokens first, with a true TTFT of
// 40 ms and ITL of 5 ms: the first reasoning token leaves 40 ms after the
// request arrived and the first answer token 40 + 10 x 5 = 90 ms after it.
func reasoningRun(tb testing.TB, n, out int, change func(*fakeserver.Config)) *Result {
	tb.Helper()
	c := fakeserver.VLLM("m", 4096)
	c.TTFT, c.ITL, c.ReasoningTokens = 40*time.Millisecond, 5*time.Millisecond, 10
	if change != nil {
		change(&c)
	}
	srv := fakeserver.Start(tb, c)
	cfg := Config{
		Load: runspec.Load{Concurrency: 1, Requests: n, Seed: 1,
			Workload: runspec.Workload{Kind: runspec.WorkloadRandom, Chat: true, InputTokens: 8, OutputTokens: out}},
		BaseURL: srv.URL, Model: "m", RunName: "r",
	}
	res, err := Run(context.Background(), cfg, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return res
}

// TestTTFOAfterReasoning checks TTFT and TTFO against the truth of a server
// that reasons for 10 tokens before it answers: TTFT is the first reasoning
// token (40 ms), TTFO the first answer token (90 ms), and the 10 reasoning
// tokens are counted from the stream, or taken from usage where the server
// reports them. Neither may come early (the truth is from the server's
// arrival, after the client's send); lateness is the loaded machine's, so
// only the median request's is held to 25 ms: a client that took the
// reasoning for the answer would be 50 ms late on every request, one that
// took the first token for the answer 50 ms early.
func TestTTFOAfterReasoning(t *testing.T) {
	for _, tc := range []struct {
		name     string
		field    string
		reported bool
		from     results.ReasoningSource
	}{
		{"reasoning_content counted", "", false, results.ReasoningFromStream},
		{"reasoning counted", "reasoning", false, results.ReasoningFromStream},
		{"reported in usage", "", true, results.ReasoningFromUsage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := reasoningRun(t, 6, 16, func(c *fakeserver.Config) { c.ReasoningField, c.ReportReasoningTokens = tc.field, tc.reported })
			var ttftErr, ttfoErr []float64
			for _, r := range res.Records {
				if !r.OK() {
					t.Fatalf("request %d failed: %s", r.Seq, r.Error)
				}
				if r.ReasoningTokens != 10 || r.Reasoning != tc.from || r.OutputTokens != 16 || r.AnswerTokens() != 6 {
					t.Errorf("request %d: %d reasoning tokens from %q, %d output, %d answer; want 10 from %q, 16, 6",
						r.Seq, r.ReasoningTokens, r.Reasoning, r.OutputTokens, r.AnswerTokens(), tc.from)
				}
				te, oe := ms(r.TTFT)-40, ms(r.TTFO)-90
				if te < -1 || oe < -1 {
					t.Errorf("request %d: TTFT %.3f ms, TTFO %.3f ms; want no earlier than 40 and 90", r.Seq, ms(r.TTFT), ms(r.TTFO))
				}
				ttftErr, ttfoErr = append(ttftErr, te), append(ttfoErr, oe)
			}
			sort.Float64s(ttftErr)
			sort.Float64s(ttfoErr)
			if te, oe := ttftErr[len(ttftErr)/2], ttfoErr[len(ttfoErr)/2]; te > 25 || oe > 25 {
				t.Errorf("median request late by %.3f ms (TTFT), %.3f ms (TTFO); want at most 25", te, oe)
			}
			t.Logf("TTFT error median %.3f ms max %.3f; TTFO error median %.3f ms max %.3f (truth 40 ms, 90 ms)",
				ttftErr[len(ttftErr)/2], ttftErr[len(ttftErr)-1], ttfoErr[len(ttfoErr)/2], ttfoErr[len(ttfoErr)-1])
			s := results.Analyze(res.Records, results.SummarizeOptions{}).Summary
			if s.Reasoning == nil || s.Reasoning.Tokens.Mean != 10 || s.Reasoning.AnswerTokens.Mean != 6 || s.TTFO.N != s.TTFT.N {
				t.Errorf("summary reasoning %+v, TTFO n %d of TTFT n %d; want 10 reasoning and 6 answer tokens a request, every request answered",
					s.Reasoning, s.TTFO.N, s.TTFT.N)
			}
		})
	}
}

// TestAnswerEndedInReasoning checks that answers cut off by max_tokens in
// their reasoning have a TTFT but no TTFO, and are counted as unanswered.
func TestAnswerEndedInReasoning(t *testing.T) {
	res := reasoningRun(t, 3, 8, nil)
	for _, r := range res.Records {
		if !r.OK() || r.TTFT == 0 || r.TTFO != 0 || r.ReasoningTokens != 8 {
			t.Errorf("request %d: error %q, TTFT %v, TTFO %v, %d reasoning tokens; want ok, a TTFT, no TTFO, 8", r.Seq, r.Error, r.TTFT, r.TTFO, r.ReasoningTokens)
		}
	}
	s := results.Analyze(res.Records, results.SummarizeOptions{}).Summary
	if s.Reasoning == nil || s.Reasoning.Unanswered != s.Requests.Completed || s.TTFO.N != 0 {
		t.Errorf("reasoning %+v, TTFO n %d; want every completed request unanswered", s.Reasoning, s.TTFO.N)
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// TestSimulatorReasoning runs chat requests against the simulator with
// --reasoning-tokens 10: every answer of 24 tokens has 10 reasoning tokens,
// counted from its stream (vLLM's usage reports none), and 14 of its own,
// and its first answer token comes after its first token. Steps are slowed
// (about 30 ms) so that each token gets a chunk of its own; a client that
// falls behind on a loaded machine still gets the end of the reasoning and
// the start of the answer in one chunk now and then, whose tokens count
// for the answer, so only most requests must count exactly 10.
func TestSimulatorReasoning(t *testing.T) {
	url := simURL(t, "--profile", "tiny", "--reasoning-tokens", "10", "--slowdown", "20")
	res, err := Run(context.Background(), Config{
		Load: runspec.Load{Concurrency: 2, Requests: 6, Seed: 1,
			Workload: runspec.Workload{Kind: runspec.WorkloadRandom, Chat: true, InputTokens: 32, OutputTokens: 24}},
		BaseURL: url, Model: "llmgate/tiny-sim", RunName: "r",
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	exact := 0
	for _, r := range res.Records {
		if !r.OK() || r.ReasoningTokens > 10 || r.Reasoning != results.ReasoningFromStream || r.OutputTokens != 24 || r.TTFO <= r.TTFT {
			t.Errorf("request %d: error %q, %d reasoning tokens from %q, %d output tokens, TTFT %v, TTFO %v; want at most 10 from the stream, 24, TTFO after TTFT",
				r.Seq, r.Error, r.ReasoningTokens, r.Reasoning, r.OutputTokens, r.TTFT, r.TTFO)
		}
		if r.ReasoningTokens == 10 {
			exact++
		}
	}
	if exact*2 <= len(res.Records) {
		t.Errorf("%d of %d requests counted the 10 reasoning tokens, want most", exact, len(res.Records))
	}
}
