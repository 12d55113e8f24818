package report

import (
	"strings"

	"github.com/llmgate/llmgate/results"
)

// toolHeader heads the table of a run's tool calls.
var toolHeader = []string{"run", "requests", "calls", "valid rate", "complete p50", "complete p95", "in text"}

// toolCells are a run's cells after its name; nil for a run whose
// workload offered no tools.
func toolCells(r *results.Run) []string {
	tc := r.Summary.ToolCalls
	if r.Status == results.StatusFailed || tc == nil {
		return nil
	}
	valid, p50, p95 := "-", "-", "-"
	if tc.Requests > 0 {
		valid = Value(tc.ValidRate, results.Ratio)
	}
	if tc.Time.N > 0 {
		p50, p95 = fmtMs(tc.Time.P50), fmtMs(tc.Time.P95)
	}
	return []string{Value(float64(tc.Requests), results.Count), Value(float64(tc.Calls), results.Count), valid, p50, p95, Value(float64(tc.Unanswered), results.Count)}
}

// toolSection is the table of the runs' tool calls.
var toolSection = runSection{header: toolHeader, cells: toolCells,
	caption: "tool calls (requests that answered with a call, their calls, the share whose every call was valid, the time to the complete calls; in text: answered without one)",
	title:   "**Tool calls** (valid: the arguments parse and follow the tool's parameters; complete: send to the last argument chunk)"}

func writeToolCalls(b *strings.Builder, f *results.File) { toolSection.write(b, f) }
func mdToolCalls(m *mdBuilder, cur *results.File)        { toolSection.markdown(m, cur) }
