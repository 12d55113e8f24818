package load

import (
	"github.com/llmgate/llmgate/internal/trace"
	"github.com/llmgate/llmgate/runspec"
)

// ContextNeed is the most tokens, prompt and answer together, that one
// request of w may need of the model's context: the longest prompt its
// lengths' range allows plus the longest answer, a shared prefix
// included, and for a conversation its last turn, which carries every
// earlier question and answer. known is false for a dataset, whose
// prompts are its entries' (see DatasetFit), and for a trace, whose are
// its rows' (see TraceUnfit).
func ContextNeed(w runspec.Workload) (tokens int, known bool) {
	in, out := longest(w.InputTokens, w.RangeRatio), longest(w.OutputTokens, w.RangeRatio)
	switch w.Kind {
	case runspec.WorkloadDataset, runspec.WorkloadTrace:
		return 0, false
	case runspec.WorkloadPrefix:
		return w.PrefixTokens + in + out, true
	case runspec.WorkloadConversation:
		return max(w.Turns, 1) * (in + out), true
	}
	return in + out, true
}

// longest is the largest length length(r, n, ratio) draws.
func longest(n int, ratio float64) int {
	if ratio <= 0 || n <= 0 {
		return max(n, 1)
	}
	return max(int(float64(n)*(1+ratio)), 1)
}

// TraceUnfit counts the rows of t that a trace workload's load c replays
// whose prompt reaches a context of limit tokens or whose prompt and
// answer exceed it (vLLM refuses those with a 400), of total rows.
func TraceUnfit(c runspec.Load, t *trace.Trace, limit int) (unfit, total int) {
	rows := traceWindow(c).Rows(t)
	for i := range rows {
		if rows[i].Input >= limit || rows[i].Input+rows[i].Output > limit {
			unfit++
		}
	}
	return unfit, len(rows)
}
