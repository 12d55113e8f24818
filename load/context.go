package load

import "github.com/llmgate/llmgate/runspec"

// ContextNeed is the most tokens, prompt and answer together, that one
// request of w may need of the model's context: the longest prompt its
// lengths' range allows plus the longest answer, a shared prefix
// included, and for a conversation its last turn, which carries every
// earlier question and answer. known is false for a dataset, whose
// prompts are its entries' (see DatasetFit).
func ContextNeed(w runspec.Workload) (tokens int, known bool) {
	in, out := longest(w.InputTokens, w.RangeRatio), longest(w.OutputTokens, w.RangeRatio)
	switch w.Kind {
	case runspec.WorkloadDataset:
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
