package runner

import "github.com/llmgate/llmgate/runspec"

// prefixWorkload is the workload whose kind says whether l's prompts
// share a prefix on purpose, for prefixHitProblem: a mix's first member
// that does (a prefix or structured member's hits are the mix's own),
// else its first member; the load's workload without a mix.
func prefixWorkload(l runspec.Load) runspec.Workload {
	for _, m := range l.Mix {
		switch m.Workload.Kind {
		case runspec.WorkloadRandom, runspec.WorkloadDataset, "":
		default:
			return m.Workload
		}
	}
	return l.Workload
}
