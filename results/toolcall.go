package results

import (
	"fmt"
	"time"
)

// ToolCalls describes the tool calls of a run whose workload offered
// tools: how many completed requests answered with a tool call, how many
// calls they made, the share of requests whose every call was valid
// (its arguments parse as JSON and validate against its tool's
// parameters schema, and it names a tool offered), and the time from the
// send to the last argument chunk of the answer's tool calls, when every
// call it makes is complete (ms).
type ToolCalls struct {
	// Requests counts the completed requests that answered with at least
	// one tool call; Calls their tool calls; Unanswered the completed
	// requests of the workload that made none (a tool_choice of "auto"
	// may answer in text).
	Requests   int `json:"requests"`
	Calls      int `json:"calls"`
	Unanswered int `json:"unanswered,omitempty"`
	// ValidRate is the share of Requests whose every call was valid.
	ValidRate float64 `json:"valid_rate"`
	// Time is the time to the complete tool calls, per request that made one.
	Time Stats `json:"time"`
}

// toolCallSums gathers the tool calls of completed requests.
type toolCallSums struct {
	offered, requests, calls, valid int
	time                            []float64
}

func (ts *toolCallSums) add(r *Record) {
	if r.ToolCallValid == nil {
		return
	}
	ts.offered++
	if r.ToolCalls == 0 {
		return
	}
	ts.requests++
	ts.calls += r.ToolCalls
	if *r.ToolCallValid {
		ts.valid++
	}
	if r.ToolCallTime > 0 {
		ts.time = append(ts.time, float64(r.ToolCallTime)/float64(time.Millisecond))
	}
}

// summary is the run's ToolCalls, nil when its workload offered no tools.
func (ts *toolCallSums) summary() *ToolCalls {
	if ts.offered == 0 {
		return nil
	}
	tc := &ToolCalls{Requests: ts.requests, Calls: ts.calls, Unanswered: ts.offered - ts.requests, Time: ComputeStats(ts.time)}
	if ts.requests > 0 {
		tc.ValidRate = float64(ts.valid) / float64(ts.requests)
	}
	return tc
}

// mergeToolCalls adds a block's tool calls to the blocks' so far: counts
// summed, the valid rate weighed by the requests (exact), the time's
// statistics from the samples when given, else weighed by their counts.
func mergeToolCalls(acc, b *ToolCalls) *ToolCalls {
	if b == nil {
		return acc
	}
	if acc == nil {
		c := *b
		return &c
	}
	n := acc.Requests + b.Requests
	out := &ToolCalls{Requests: n, Calls: acc.Calls + b.Calls, Unanswered: acc.Unanswered + b.Unanswered}
	if n > 0 {
		out.ValidRate = (acc.ValidRate*float64(acc.Requests) + b.ValidRate*float64(b.Requests)) / float64(n)
	}
	out.Time = mergeStats([]Block{{Summary: Summary{ToolCalls: acc}}, {Summary: Summary{ToolCalls: b}}}, func(s *Summary) Stats { return s.ToolCalls.Time })
	return out
}

// toolCallMetrics are the namespace's names of tool calls:
// tool_call.time.<statistic> (ms, with samples for significance tests)
// and tool_call.valid_rate.
func toolCallMetrics() []Metric {
	has := func(s *Summary) bool { return s.ToolCalls != nil && s.ToolCalls.Requests > 0 }
	var ms []Metric
	for _, st := range latencyStats {
		field := st.field
		ms = append(ms, Metric{Name: "tool_call.time." + st.name, Family: ToolCall, Stat: st.kind, Quantile: st.quantile, Unit: Milliseconds, Better: LowerIsBetter,
			get: func(s *Summary) (float64, bool) {
				if !has(s) || s.ToolCalls.Time.N == 0 {
					return 0, false
				}
				return field(&s.ToolCalls.Time), true
			},
			sample: func(s *Samples) []float64 { return s.ToolCall }})
	}
	ms = append(ms, Metric{Name: "tool_call.valid_rate", Family: ToolCall, Stat: StatValue, Unit: Ratio, Better: HigherIsBetter,
		get: func(s *Summary) (float64, bool) {
			if !has(s) {
				return 0, false
			}
			return s.ToolCalls.ValidRate, true
		}})
	return ms
}

// ToolCall is the family of a run's tool calls.
const ToolCall Family = "tool_call"

// toolCalls checks a results file's tool calls.
func (c *checker) toolCalls(tc *ToolCalls) {
	const f = "summary.tool_calls"
	c.count(f+".requests", int64(tc.Requests))
	c.count(f+".calls", int64(tc.Calls))
	c.count(f+".unanswered", int64(tc.Unanswered))
	if tc.Calls < tc.Requests {
		c.fail(fmt.Sprintf("%s.calls = %d is fewer than the %d requests that made one", f, tc.Calls, tc.Requests))
	}
	c.value(f+".valid_rate", tc.ValidRate, LimitRatio)
	c.stats(f+".time", &tc.Time, LimitLatency)

}
