package load

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/llmgate/llmgate/results"
)

func TestTrackerTimings(t *testing.T) {
	ms := time.Millisecond
	type ev struct {
		at         time.Duration // after send
		choices    bool
		usage      bool
		completion int
		empty      bool // choices without generated output (a role chunk, empty content)
	}
	tests := []struct {
		name string
		evs  []ev
		want results.Record
	}{
		// one token per chunk: ITL is each gap
		{name: "single tokens", evs: []ev{{10 * ms, true, true, 1, false}, {15 * ms, true, true, 2, false}, {25 * ms, true, true, 3, false}, {26 * ms, false, true, 3, false}},
			want: results.Record{TTFT: 10 * ms, E2EL: 25 * ms, ITL: []float64{5, 10}, OutputTokens: 3, InputTokens: 7}},
		// a chunk carrying 4 tokens splits its 8 ms gap four ways
		{name: "multi-token chunk", evs: []ev{{10 * ms, true, true, 1, false}, {18 * ms, true, true, 5, false}, {20 * ms, false, true, 5, false}},
			want: results.Record{TTFT: 10 * ms, E2EL: 18 * ms, ITL: []float64{2, 2, 2, 2}, OutputTokens: 5, InputTokens: 7}},
		// a content chunk with no new token passes its gap on
		{name: "empty chunk", evs: []ev{{10 * ms, true, true, 1, false}, {12 * ms, true, true, 1, false}, {16 * ms, true, true, 2, false}},
			want: results.Record{TTFT: 10 * ms, E2EL: 16 * ms, ITL: []float64{6}, OutputTokens: 2, InputTokens: 7}},
		// tokens that come with the first chunk have no gap
		{name: "first chunk carries two", evs: []ev{{10 * ms, true, true, 2, false}, {14 * ms, true, true, 3, false}},
			want: results.Record{TTFT: 10 * ms, E2EL: 14 * ms, ITL: []float64{4}, OutputTokens: 3, InputTokens: 7}},
		// without continuous usage every content chunk is one gap; the
		// final usage gives the token count
		{name: "final usage only", evs: []ev{{10 * ms, true, false, 0, false}, {13 * ms, true, false, 0, false}, {20 * ms, false, true, 6, false}},
			want: results.Record{TTFT: 10 * ms, E2EL: 13 * ms, ITL: []float64{3}, OutputTokens: 6, InputTokens: 7}},
		// an early role chunk and an empty-content chunk are not the first
		// token; the gap of an empty chunk after it passes on
		{name: "early role chunk", evs: []ev{{1 * ms, true, false, 0, true}, {2 * ms, true, false, 0, true}, {50 * ms, true, false, 0, false},
			{55 * ms, true, false, 0, true}, {60 * ms, true, false, 0, false}, {61 * ms, false, true, 2, false}},
			want: results.Record{TTFT: 50 * ms, E2EL: 60 * ms, ITL: []float64{10}, OutputTokens: 2, InputTokens: 7}},
		// usage of zeros on every chunk (Ollama) never counts up: it is not
		// continuous usage, so each output chunk is one token's gap
		{name: "zeroed usage", evs: []ev{{10 * ms, true, true, 0, false}, {13 * ms, true, true, 0, false}, {20 * ms, true, true, 0, false}, {21 * ms, false, true, 3, false}},
			want: results.Record{TTFT: 10 * ms, E2EL: 20 * ms, ITL: []float64{3, 7}, OutputTokens: 3, InputTokens: 7}},
		// a count that goes back is no longer trusted
		{name: "count goes back", evs: []ev{{10 * ms, true, true, 1, false}, {14 * ms, true, true, 3, false}, {20 * ms, true, true, 0, false}, {23 * ms, true, true, 0, false}},
			want: results.Record{TTFT: 10 * ms, E2EL: 23 * ms, ITL: []float64{2, 2, 6, 3}, OutputTokens: 0, InputTokens: 7}},
		// with continuous usage, a role chunk reporting 0 tokens is not output
		{name: "role chunk with usage", evs: []ev{{1 * ms, true, true, 0, true}, {30 * ms, true, true, 1, false}, {40 * ms, true, true, 2, false}},
			want: results.Record{TTFT: 30 * ms, E2EL: 40 * ms, ITL: []float64{10}, OutputTokens: 2, InputTokens: 7}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sent := time.Now()
			var tr streamTimer
			tr.reset(sent, 8, false)
			for _, e := range tt.evs {
				out := e.choices && !e.empty
				c := chunk{choices: e.choices, output: out, answer: out, usage: e.usage, completionTokens: e.completion, promptTokens: 7}
				if !e.usage {
					c.promptTokens = 0
				}
				tr.observe(sent.Add(e.at), &c)
			}
			var got results.Record
			tr.fill(&got)
			if got.TTFO != got.TTFT {
				t.Errorf("TTFO = %v, want TTFT %v: nothing was reasoning", got.TTFO, got.TTFT)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateApprox(0, 1e-9), cmpopts.IgnoreFields(results.Record{}, "TTFO")); diff != "" {
				t.Errorf("record (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTrackerReasoning checks TTFO and the reasoning tokens of streams
// that reason first: TTFT is the first reasoning chunk, TTFO the first
// answer chunk, and the reasoning tokens come from usage where it reports
// them, else from the chunks that carried reasoning alone.
func TestTrackerReasoning(t *testing.T) {
	ms := time.Millisecond
	type ev struct {
		at                time.Duration
		reasoning, answer bool
		completion        int // continuous usage's count, 0 for none
		reported          int // usage's reasoning_tokens, -1 for none
	}
	tests := []struct {
		name                   string
		evs                    []ev
		ttft, ttfo             time.Duration
		reasoningTokens, final int
		from                   results.ReasoningSource
	}{
		// three reasoning chunks then two answer chunks, no usage per chunk
		{name: "counted from chunks", evs: []ev{{10 * ms, true, false, 0, -1}, {12 * ms, true, false, 0, -1}, {14 * ms, true, false, 0, -1}, {16 * ms, false, true, 0, -1}, {18 * ms, false, true, 0, -1}},
			ttft: 10 * ms, ttfo: 16 * ms, reasoningTokens: 3, final: 5, from: results.ReasoningFromStream},
		// continuous usage counts two tokens in the second reasoning chunk
		{name: "counted by continuous usage", evs: []ev{{10 * ms, true, false, 1, -1}, {14 * ms, true, false, 3, -1}, {16 * ms, false, true, 4, -1}},
			ttft: 10 * ms, ttfo: 16 * ms, reasoningTokens: 3, final: 4, from: results.ReasoningFromStream},
		// usage's count wins over the stream's
		{name: "reported", evs: []ev{{10 * ms, true, false, 0, -1}, {16 * ms, false, true, 0, -1}, {17 * ms, false, false, 0, 40}},
			ttft: 10 * ms, ttfo: 16 * ms, reasoningTokens: 40, final: 50, from: results.ReasoningFromUsage},
		// the chunk that ends the reasoning and starts the answer is the answer's
		{name: "mixed chunk", evs: []ev{{10 * ms, true, false, 0, -1}, {12 * ms, true, true, 0, -1}},
			ttft: 10 * ms, ttfo: 12 * ms, reasoningTokens: 1, final: 2, from: results.ReasoningFromStream},
		// a stream that ends in its reasoning has a TTFT and no TTFO
		{name: "no answer", evs: []ev{{10 * ms, true, false, 0, -1}, {12 * ms, true, false, 0, -1}},
			ttft: 10 * ms, reasoningTokens: 2, final: 2, from: results.ReasoningFromStream},
		// a server that reports zero reasoning tokens says so
		{name: "reported zero", evs: []ev{{10 * ms, false, true, 0, -1}, {11 * ms, false, false, 0, 0}},
			ttft: 10 * ms, ttfo: 10 * ms, final: 1, from: results.ReasoningFromUsage},
		// no reasoning at all: no source
		{name: "plain", evs: []ev{{10 * ms, false, true, 0, -1}, {11 * ms, false, true, 0, -1}},
			ttft: 10 * ms, ttfo: 10 * ms, final: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sent := time.Now()
			var tr streamTimer
			tr.reset(sent, 8, false)
			for _, e := range tt.evs {
				c := chunk{choices: e.reasoning || e.answer, reasoning: e.reasoning, answer: e.answer, output: e.reasoning || e.answer}
				if e.completion > 0 {
					c.usage, c.completionTokens = true, e.completion
				}
				if e.reported >= 0 {
					c.usage, c.completionTokens, c.reasoningTokens, c.hasReasoningTokens = true, tt.final, e.reported, true
				}
				tr.observe(sent.Add(e.at), &c)
			}
			var got results.Record
			tr.fill(&got)
			if got.TTFT != tt.ttft || got.TTFO != tt.ttfo {
				t.Errorf("TTFT %v, TTFO %v; want %v, %v", got.TTFT, got.TTFO, tt.ttft, tt.ttfo)
			}
			if got.ReasoningTokens != tt.reasoningTokens || got.Reasoning != tt.from {
				t.Errorf("reasoning tokens %d from %q, want %d from %q", got.ReasoningTokens, got.Reasoning, tt.reasoningTokens, tt.from)
			}
		})
	}
}

func TestTrackerReasoningContradicted(t *testing.T) {
	var tr streamTimer
	tr.reset(time.Now(), 8, false)
	tr.observe(time.Now(), &chunk{choices: true, output: true, answer: true})
	tr.observe(time.Now(), &chunk{usage: true, completionTokens: 4, reasoningTokens: 9, hasReasoningTokens: true})
	if got, want := tr.usageProblem(), "usage contradicts itself: reasoning_tokens 9 of completion_tokens 4"; got != want {
		t.Errorf("usageProblem = %q, want %q", got, want)
	}
}

func TestTrackerUsageProblem(t *testing.T) {
	sent := time.Now()
	var tr streamTimer
	tr.reset(sent, 8, false)
	for i := range 8 {
		tr.observe(sent.Add(time.Duration(i+1)*time.Millisecond), &chunk{choices: true, output: true})
	}
	tr.observe(sent.Add(9*time.Millisecond), &chunk{usage: true, promptTokens: 3, completionTokens: 1})
	if got, want := tr.usageProblem(), "usage contradicts the stream: completion_tokens 1 after 8 chunks of generated output"; got != want {
		t.Errorf("usageProblem = %q, want %q", got, want)
	}
	tr.observe(sent.Add(10*time.Millisecond), &chunk{usage: true, promptTokens: 3, completionTokens: 8})
	if got := tr.usageProblem(); got != "" {
		t.Errorf("usageProblem with 8 tokens = %q, want none", got)
	}
}

// TestTrackerBoundsWhatAStreamKeeps checks that a hostile stream cannot
// make one request hold without end: a usage count far past max_tokens
// stops at the bound (a loop of 10^12 appends otherwise) and a kept answer
// text stops at maxAnswerText, each saying so.
func TestTrackerBoundsWhatAStreamKeeps(t *testing.T) {
	sent := time.Now()
	var tr streamTimer
	tr.reset(sent, 8, false)
	tr.observe(sent.Add(time.Millisecond), &chunk{choices: true, output: true, usage: true, completionTokens: 1})
	tr.observe(sent.Add(2*time.Millisecond), &chunk{choices: true, output: true, usage: true, completionTokens: 1_000_000_000_000})
	if why := tr.overflow(); !strings.Contains(why, "more than") || len(tr.itl) != tr.itlRoom {
		t.Errorf("after a count of 10^12: overflow %q with %d gaps kept (room %d)", why, len(tr.itl), tr.itlRoom)
	}
	tr.reset(sent, 8, true)
	text := make([]byte, 1<<20)
	for i := range 5 {
		tr.observe(sent.Add(time.Duration(i)*time.Millisecond), &chunk{choices: true, output: true, text: text})
	}
	if why := tr.overflow(); !strings.Contains(why, "4 MiB") || len(tr.text) > maxAnswerText {
		t.Errorf("after 5 MiB of text: overflow %q, %d bytes kept", why, len(tr.text))
	}
}
