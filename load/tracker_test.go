package load

import (
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
	}
	tests := []struct {
		name string
		evs  []ev
		want results.Record
	}{
		// one token per chunk: ITL is each gap
		{name: "single tokens", evs: []ev{{10 * ms, true, true, 1}, {15 * ms, true, true, 2}, {25 * ms, true, true, 3}, {26 * ms, false, true, 3}},
			want: results.Record{TTFT: 10 * ms, E2EL: 25 * ms, ITL: []float64{5, 10}, OutputTokens: 3, InputTokens: 7}},
		// a chunk carrying 4 tokens splits its 8 ms gap four ways
		{name: "multi-token chunk", evs: []ev{{10 * ms, true, true, 1}, {18 * ms, true, true, 5}, {20 * ms, false, true, 5}},
			want: results.Record{TTFT: 10 * ms, E2EL: 18 * ms, ITL: []float64{2, 2, 2, 2}, OutputTokens: 5, InputTokens: 7}},
		// a content chunk with no new token passes its gap on
		{name: "empty chunk", evs: []ev{{10 * ms, true, true, 1}, {12 * ms, true, true, 1}, {16 * ms, true, true, 2}},
			want: results.Record{TTFT: 10 * ms, E2EL: 16 * ms, ITL: []float64{6}, OutputTokens: 2, InputTokens: 7}},
		// tokens that come with the first chunk have no gap
		{name: "first chunk carries two", evs: []ev{{10 * ms, true, true, 2}, {14 * ms, true, true, 3}},
			want: results.Record{TTFT: 10 * ms, E2EL: 14 * ms, ITL: []float64{4}, OutputTokens: 3, InputTokens: 7}},
		// without continuous usage every content chunk is one gap; the
		// final usage gives the token count
		{name: "final usage only", evs: []ev{{10 * ms, true, false, 0}, {13 * ms, true, false, 0}, {20 * ms, false, true, 6}},
			want: results.Record{TTFT: 10 * ms, E2EL: 13 * ms, ITL: []float64{3}, OutputTokens: 6, InputTokens: 7}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sent := time.Now()
			var tr tracker
			tr.reset(sent, 8, false)
			for _, e := range tt.evs {
				c := chunk{choices: e.choices, usage: e.usage, completionTokens: e.completion, promptTokens: 7}
				if !e.usage {
					c.promptTokens = 0
				}
				tr.observe(sent.Add(e.at), &c)
			}
			var got results.Record
			tr.fill(&got)
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
				t.Errorf("record (-want +got):\n%s", diff)
			}
		})
	}
}
