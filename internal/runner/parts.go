package runner

import (
	"time"

	"github.com/llmgate/llmgate/internal/trace"
	"github.com/llmgate/llmgate/runspec"
)

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

// mixContextProblem is contextProblem for each member of l's mix (the
// first that cannot fit, named), or for l's workload without one.
func mixContextProblem(l runspec.Load, t *trace.Trace, limit int, source string) string {
	for _, m := range l.Mix {
		one := l
		one.Workload, one.Mix = m.Workload, nil
		if msg := contextProblem(one, t, limit, source); msg != "" {
			return "mix member " + m.Name + ": " + msg
		}
	}
	if len(l.Mix) > 0 {
		return ""
	}
	return contextProblem(l, t, limit, source)
}

// total is how many measured requests a run plans, or for how long.
type total struct {
	Requests int
	Duration time.Duration
}

// plannedTotal is l's end for the progress line: its requests and
// duration, and for stages their sum where every stage has one (0: the
// stages end otherwise).
func plannedTotal(l runspec.Load) total {
	if len(l.Stages) == 0 {
		return total{l.Requests, l.Duration}
	}
	var t total
	for _, st := range l.Stages {
		if t.Requests >= 0 && st.Requests > 0 && st.Duration == 0 {
			t.Requests += st.Requests
		} else {
			t.Requests = -1
		}
		if t.Duration >= 0 && st.Duration > 0 && st.Requests == 0 {
			t.Duration += st.Duration
		} else {
			t.Duration = -1
		}
	}
	t.Requests, t.Duration = max(t.Requests, 0), max(t.Duration, 0)
	return t
}
