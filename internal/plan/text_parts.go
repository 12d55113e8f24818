package plan

import (
	"fmt"

	"github.com/llmgate/llmgate/runspec"
)

// writeLoadAndWorkload prints a run's load and workload as --plan does:
// one line each, and for a staged load one more line a stage, for a mix
// one line a member with its share of the requests.
func writeLoadAndWorkload(ew *errWriter, l runspec.Load) {
	if len(l.Stages) == 0 {
		ew.printf("    load:     %s\n", DescribeLoad(l))
	} else {
		rest := l
		rest.Stages = nil
		// the load's own knobs beside its stages: warmup, seed, timeout
		head := fmt.Sprintf("%d stages, one after another", len(l.Stages))
		if tail := DescribeLoad(rest); tail != "" {
			head += "; " + trimLoop(tail)
		}
		ew.printf("    load:     %s\n", head)
		for i, st := range l.Stages {
			one := runspec.Load{Rate: st.Rate, Burstiness: st.Burstiness, Concurrency: st.Concurrency, Requests: st.Requests, Duration: st.Duration}
			ew.printf("      stage %d: %s\n", i+1, DescribeLoad(one))
		}
	}
	if len(l.Mix) == 0 {
		ew.printf("    workload: %s\n", DescribeWorkload(l.Workload))
		return
	}
	total := 0.0
	for _, m := range l.Mix {
		total += m.Weight
	}
	ew.printf("    workload: a mix of %d, each request drawing its member by weight\n", len(l.Mix))
	for _, m := range l.Mix {
		ew.printf("      %s (weight %s, %.0f%% of requests): %s\n", m.Name, FormatNumber(m.Weight), 100*m.Weight/total, DescribeWorkload(m.Workload))
	}
}

// trimLoop drops the "closed loop, 0 concurrent" DescribeLoad gives a
// load whose stages say how requests arrive.
func trimLoop(s string) string {
	const none = "closed loop, 0 concurrent"
	switch {
	case s == none:
		return ""
	case len(s) > len(none)+2 && s[:len(none)+2] == none+", ":
		return s[len(none)+2:]
	}
	return s
}
