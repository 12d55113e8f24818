package results

import (
	"strings"
	"testing"
	"time"
)

// TestAnalyzeToolCalls checks the tool-call figures Analyze draws from
// records: the time over the requests that made a call, the valid rate
// over them, a request that answered in text counted apart, failures and
// workloads without tools counted for nothing.
func TestAnalyzeToolCalls(t *testing.T) {
	ms := time.Millisecond
	yes, no := true, false
	recs := []Record{
		{Seq: 0, TTFT: 10 * ms, E2EL: 100 * ms, OutputTokens: 20, ToolCallValid: &yes, ToolCalls: 1, ToolCallTime: 90 * ms},
		{Seq: 1, Sent: ms, TTFT: 10 * ms, E2EL: 200 * ms, OutputTokens: 20, ToolCallValid: &no, ToolCalls: 2, ToolCallTime: 190 * ms},
		// tool_choice "auto": it answered in text
		{Seq: 2, Sent: 2 * ms, TTFT: 10 * ms, E2EL: 300 * ms, OutputTokens: 20, ToolCallValid: &yes},
		{Seq: 3, Sent: 3 * ms, Error: "HTTP 500", ErrorKind: "http"},
	}
	a := Analyze(recs, SummarizeOptions{})
	tc := a.Summary.ToolCalls
	if tc == nil || tc.Requests != 2 || tc.Calls != 3 || tc.Unanswered != 1 || tc.ValidRate != 0.5 || tc.Time.N != 2 || tc.Time.Mean != 140 {
		t.Fatalf("tool calls %+v: want 2 requests, 3 calls, 1 unanswered, valid 0.5, time mean 140 ms of 2", tc)
	}
	if got := a.Samples.ToolCall; len(got) != 2 || got[0] != 90 || got[1] != 190 {
		t.Errorf("samples %v, want [90 190]", got)
	}
	vals := a.Summary.Values()
	if vals["tool_call.valid_rate"] != 0.5 || vals["tool_call.time.max"] != 190 {
		t.Errorf("values %v", vals)
	}
	m, _ := LookupMetric("tool_call.time.p95")
	if m.Unit != Milliseconds || m.Better != LowerIsBetter || len(m.Samples(&Run{Samples: a.Samples})) != 2 {
		t.Errorf("tool_call.time.p95: %+v", m)
	}
	if err := (&File{Runs: []Run{{Name: "r", Status: StatusOK, Summary: a.Summary, Samples: a.Samples}}}).Check(); err != nil {
		t.Errorf("check: %v", err)
	}
	// no tools offered: no figures, and a reason
	plain := Analyze(recs[3:], SummarizeOptions{})
	if plain.Summary.ToolCalls != nil {
		t.Errorf("without tools: %+v", plain.Summary.ToolCalls)
	}
	if why := m.WhyNotMeasured(&plain.Summary); !strings.Contains(why, "offers no tools") {
		t.Errorf("why: %q", why)
	}
	// two blocks: counts summed, the rate weighed, the time from both blocks' samples
	s, _ := MergeBlocks([]Block{{Summary: a.Summary, Samples: a.Samples}, {Summary: a.Summary, Samples: a.Samples}})
	if s.ToolCalls == nil || s.ToolCalls.Requests != 4 || s.ToolCalls.ValidRate != 0.5 || s.ToolCalls.Time.N != 4 {
		t.Errorf("merged %+v", s.ToolCalls)
	}
}
