package compare

import (
	"fmt"
	"strings"

	"github.com/llmgate/llmgate/results"
)

// mixText is a run's mix as the load facet "mix" shows it: each member's
// name, weight, workload and lengths; "none" without a mix.
func mixText(l *results.LoadConfig) string {
	if len(l.Mix) == 0 {
		return "none"
	}
	parts := make([]string, len(l.Mix))
	for i, m := range l.Mix {
		parts[i] = fmt.Sprintf("%s weight %s (%s, %d in / %d out tokens", m.Name, exact(m.Weight), m.Workload, m.InputTokens, m.OutputTokens)
		if m.PrefixTokens > 0 {
			parts[i] += fmt.Sprintf(", %d-token prefix", m.PrefixTokens)
		}
		parts[i] += ")"
	}
	return strings.Join(parts, ", ")
}

// stagesText is a run's stages as the load facet "stages" shows them, in
// order; "none" without stages.
func stagesText(l *results.LoadConfig) string {
	if len(l.Stages) == 0 {
		return "none"
	}
	parts := make([]string, len(l.Stages))
	for i, st := range l.Stages {
		var s []string
		if st.Rate > 0 {
			s = append(s, numberText(st.Rate, " req/s"))
		}
		if st.Burstiness > 0 {
			s = append(s, "burstiness "+exact(st.Burstiness))
		}
		if st.Concurrency > 0 {
			s = append(s, "concurrency "+intText(st.Concurrency))
		}
		if st.Requests > 0 {
			s = append(s, intText(st.Requests)+" requests")
		}
		if st.DurationS > 0 {
			s = append(s, numberText(st.DurationS, " s"))
		}
		parts[i] = fmt.Sprintf("%d: %s", i+1, strings.Join(s, " "))
	}
	return strings.Join(parts, "; ")
}
