package load

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/llmgate/llmgate/internal/fakeserver"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
)

// weatherTools offers one tool whose arguments need a city (a string) and
// may give days (an integer from 1).
const weatherTools = `[{"type": "function", "function": {"name": "get_weather", "description": "The weather", "parameters":
 {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1}}, "required": ["city"]}}}]`

// toolRun runs n chat requests one at a time against a fake vLLM that
// answers each with a call of name whose arguments stream in args'
// pieces, with a true TTFT of 40 ms and ITL of 5 ms: the last piece leaves
// 40 + len(args) x 5 ms after the request arrived.
func toolRun(tb testing.TB, n int, name string, args []string, choice string) *Result {
	tb.Helper()
	c := fakeserver.VLLM("m", 4096)
	c.TTFT, c.ITL = 40*time.Millisecond, 5*time.Millisecond
	c.ToolCall = &fakeserver.ToolCall{Name: name, Arguments: args}
	srv := fakeserver.Start(tb, c)
	res, err := Run(context.Background(), Config{
		Load: runspec.Load{Concurrency: 1, Requests: n, Seed: 1,
			Workload: runspec.Workload{Kind: runspec.WorkloadRandom, Chat: true, InputTokens: 8, OutputTokens: 64, Tools: weatherTools, ToolChoice: choice}},
		BaseURL: srv.URL, Model: "m", RunName: "r",
	}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return res
}

// TestToolCallTime checks the time to the complete tool call against the
// truth of a server whose call's 8 argument pieces end 40 + 8 x 5 = 80 ms
// after the request arrived: never earlier, and the median request within
// 25 ms (a client that timed the call's first chunk would be 40 ms early,
// one that timed the stream's end no later than this). The calls are
// valid, and tool_call.valid_rate is 1.
func TestToolCallTime(t *testing.T) {
	args := []string{`{"ci`, `ty": `, `"Par`, `is", `, `"da`, `ys"`, `: 3`, `}`}
	res := toolRun(t, 6, "get_weather", args, `"auto"`)
	var errs []float64
	for _, r := range res.Records {
		if !r.OK() || r.ToolCalls != 1 || r.ToolCallValid == nil || !*r.ToolCallValid || r.FinishReason != "tool_calls" {
			t.Fatalf("request %d: error %q, %d calls, valid %v, finish %q; want one valid call, tool_calls", r.Seq, r.Error, r.ToolCalls, r.ToolCallValid, r.FinishReason)
		}
		e := ms(r.ToolCallTime) - 80
		if e < -1 {
			t.Errorf("request %d: tool call complete at %.3f ms, before the truth of 80 ms", r.Seq, ms(r.ToolCallTime))
		}
		errs = append(errs, e)
	}
	sort.Float64s(errs)
	if errs[len(errs)/2] > 25 {
		t.Errorf("median request late by %.3f ms, want at most 25", errs[len(errs)/2])
	}
	t.Logf("time to complete tool call: error median %.3f ms, max %.3f ms (truth 80 ms)", errs[len(errs)/2], errs[len(errs)-1])
	s := results.Analyze(res.Records, results.SummarizeOptions{}).Summary
	if tc := s.ToolCalls; tc == nil || tc.Requests != 6 || tc.Calls != 6 || tc.ValidRate != 1 || tc.Time.N != 6 {
		t.Errorf("summary %+v: want 6 requests, 6 calls, valid rate 1", tc)
	}
}

// TestToolCallValidity judges calls that break their tool: arguments that
// are not JSON, that miss the required city or give days of 0, a tool
// not offered. Each such run's valid rate is 0.
func TestToolCallValidity(t *testing.T) {
	for name, c := range map[string]struct {
		tool string
		args []string
	}{
		"not JSON":         {"get_weather", []string{`{"city": `, `"Paris"`}},
		"missing required": {"get_weather", []string{`{"days": 2}`}},
		"below minimum":    {"get_weather", []string{`{"city": "Oslo", `, `"days": 0}`}},
		"unknown tool":     {"get_time", []string{`{"city": "Oslo"}`}},
	} {
		t.Run(name, func(t *testing.T) {
			res := toolRun(t, 2, c.tool, c.args, "")
			s := results.Analyze(res.Records, results.SummarizeOptions{}).Summary
			if tc := s.ToolCalls; tc == nil || tc.Requests != 2 || tc.ValidRate != 0 {
				t.Errorf("summary %+v: want 2 requests with a call, valid rate 0", tc)
			}
		})
	}
}

// TestToolChoiceNone sends tool_choice "none": the server answers in
// text, and the requests count as unanswered, with no valid rate.
func TestToolChoiceNone(t *testing.T) {
	res := toolRun(t, 2, "get_weather", []string{`{"city": "Oslo"}`}, `"none"`)
	s := results.Analyze(res.Records, results.SummarizeOptions{}).Summary
	if tc := s.ToolCalls; tc == nil || tc.Requests != 0 || tc.Unanswered != 2 {
		t.Errorf("summary %+v: want no call, 2 unanswered", tc)
	}
	m, _ := results.LookupMetric("tool_call.valid_rate")
	if _, ok := m.Value(&s); ok {
		t.Error("a run without a call has a valid rate")
	}
}

// simToolRun runs n chat requests offering weatherTools with choice
// against the tiny simulator started with args.
func simToolRun(t *testing.T, n int, choice string, args ...string) *Result {
	t.Helper()
	url := simURL(t, append([]string{"--profile", "tiny", "--slowdown", "5"}, args...)...)
	res, err := Run(context.Background(), Config{
		Load: runspec.Load{Concurrency: 2, Requests: n, Seed: 1,
			Workload: runspec.Workload{Kind: runspec.WorkloadRandom, Chat: true, InputTokens: 16, OutputTokens: 256, Tools: weatherTools, ToolChoice: choice}},
		BaseURL: url, Model: "llmgate/tiny-sim", RunName: "r",
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestSimulatorToolCalls runs tool-calling requests against the
// simulator: every answer is one call of get_weather in vLLM's delta
// shape whose arguments follow its parameters (valid rate 1), complete
// with the answer's last chunk (the call is the whole answer: its time is
// the E2EL, after the TTFT); with --invalid-structured-rate 0.5 about half
// the calls are cut off half-way and judged invalid; "auto" without
// --enable-auto-tool-choice is refused as vLLM refuses it.
func TestSimulatorToolCalls(t *testing.T) {
	res := simToolRun(t, 8, `"required"`)
	for _, r := range res.Records {
		if !r.OK() || r.ToolCalls != 1 || r.ToolCallValid == nil || !*r.ToolCallValid || r.FinishReason != "tool_calls" {
			t.Fatalf("request %d: error %q, %d calls, valid %v, finish %q; want one valid call, tool_calls", r.Seq, r.Error, r.ToolCalls, r.ToolCallValid, r.FinishReason)
		}
		if r.ToolCallTime != r.E2EL || r.ToolCallTime <= r.TTFT && r.OutputTokens > 1 {
			t.Errorf("request %d: tool call complete at %v, E2EL %v, TTFT %v; want the E2EL, after the TTFT", r.Seq, r.ToolCallTime, r.E2EL, r.TTFT)
		}
	}
	s := results.Analyze(res.Records, results.SummarizeOptions{}).Summary
	if tc := s.ToolCalls; tc == nil || tc.ValidRate != 1 || tc.Requests != 8 {
		t.Errorf("summary %+v: want 8 calls, valid rate 1", tc)
	}
	res = simToolRun(t, 16, "", "--enable-auto-tool-choice", "--invalid-structured-rate", "0.5")
	s = results.Analyze(res.Records, results.SummarizeOptions{}).Summary
	if tc := s.ToolCalls; tc == nil || tc.Requests != 16 || tc.ValidRate < 0.2 || tc.ValidRate > 0.8 {
		t.Errorf("with half the calls cut: %+v, want 16 calls, a valid rate about 0.5", tc)
	} else {
		t.Logf("--invalid-structured-rate 0.5: tool_call.valid_rate %.3f over %d calls", tc.ValidRate, tc.Requests)
	}
	res = simToolRun(t, 2, `"auto"`)
	for _, r := range res.Records {
		if r.OK() || !strings.Contains(r.Error, "--enable-auto-tool-choice") {
			t.Errorf("request %d: error %q, want vLLM's refusal of auto without --enable-auto-tool-choice", r.Seq, r.Error)
		}
	}
}

// TestToolsTwice refuses a run whose extra_body sets tools or tool_choice
// beside the workload's tools: one would silently override the other.
func TestToolsTwice(t *testing.T) {
	_, err := newWorkload(Config{Load: runspec.Load{Workload: runspec.Workload{Kind: runspec.WorkloadRandom, Chat: true, InputTokens: 8, OutputTokens: 8, Tools: weatherTools},
		Request: runspec.Request{ExtraBody: []byte(`"temperature":0,"tool_choice":"auto"`)}}, Model: "m"})
	if err == nil || !strings.Contains(err.Error(), `extra_body sets "tool_choice"`) {
		t.Errorf("error %v, want extra_body's tool_choice refused", err)
	}
	if bodyMemberOf([]byte(`"temperature":0`), "tools") != "" {
		t.Error("temperature taken for tools")
	}
}
