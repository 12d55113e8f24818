package load

import (
	"fmt"

	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
)

// streamMix is the rng stream a request's mix member is drawn from.
const streamMix = 9

// mixWorkload sends each request as one of its members, drawn by weight
// from the run's prompt key and the request's slot: the same members for
// the same seed, run name and index, so that a baseline and a candidate
// draw alike whatever the order their requests are made in.
type mixWorkload struct {
	key     promptKey
	members []mixMember
	// total is the sum of the members' weights.
	total float64
}

// mixMember is one member of a mix and the workload that makes its
// requests.
type mixMember struct {
	name   string
	weight float64
	wl     workload
	cfg    Config
}

// newMixWorkload builds each member's workload from cfg with the member's
// workload in place of cfg's. A member's prompts are keyed by the run's
// name and the member's, so that no two members share a prompt.
func newMixWorkload(cfg Config) (*mixWorkload, error) {
	w := &mixWorkload{key: newPromptKey(cfg.Seed, cfg.RunName)}
	for _, m := range cfg.Mix {
		mc := cfg
		mc.Workload, mc.Mix = m.Workload, nil
		mc.RunName = cfg.RunName + "/mix." + m.Name
		wl, err := newWorkload(mc)
		if err != nil {
			return nil, fmt.Errorf("mix member %q: %w", m.Name, err)
		}
		w.members = append(w.members, mixMember{name: m.Name, weight: m.Weight, wl: wl, cfg: mc})
		w.total += m.Weight
	}
	return w, nil
}

// draw is the index of the member slot s sends.
func (w *mixWorkload) draw(s slot) int {
	x := rng(w.key, streamMix, s.item()).Float64() * w.total
	for i, m := range w.members {
		if x < m.weight {
			return i
		}
		x -= m.weight
	}
	return len(w.members) - 1 // rounding at the top end
}

func (w *mixWorkload) next(s slot) *request {
	m := &w.members[w.draw(s)]
	req := m.wl.next(s)
	req.member = m.name
	return req
}

// validateMix reports what makes cfg's mix unusable.
func validateMix(cfg Config, bad func(string, ...any)) {
	seen := map[string]bool{}
	for _, m := range cfg.Mix {
		switch {
		case !results.ValidPartKey(results.PartMix, m.Name):
			bad("load: mix member %q: a name is a letter, then letters, digits or _, at most 32 characters", m.Name)
		case seen[m.Name]:
			bad("load: mix member %q is declared twice", m.Name)
		}
		seen[m.Name] = true
		if !(m.Weight > 0) || m.Weight > 1e9 {
			bad("load: mix member %q: weight %g must be above 0", m.Name, m.Weight)
		}
		switch m.Workload.Kind {
		case runspec.WorkloadTrace, runspec.WorkloadConversation:
			bad("load: mix member %q: a %s workload can't be mixed: its requests follow an order of their own", m.Name, m.Workload.Kind)
		}
		if m.Workload.OutputTokens == 0 && m.Workload.Kind != runspec.WorkloadDataset {
			bad("load: mix member %q needs output_tokens > 0", m.Name)
		}
	}
}

// recordParts is c's mix and stages as the results file keeps them.
func recordParts(c runspec.Load) ([]results.MixShare, []results.StageConfig) {
	var mix []results.MixShare
	for _, m := range c.Mix {
		w := m.Workload
		kind := w.Kind
		if kind == "" {
			kind = runspec.WorkloadRandom
		}
		mix = append(mix, results.MixShare{Name: m.Name, Weight: m.Weight, Workload: string(kind),
			InputTokens: w.InputTokens, OutputTokens: w.OutputTokens, PrefixTokens: w.PrefixTokens})
	}
	var stages []results.StageConfig
	for _, st := range c.Stages {
		stages = append(stages, results.StageConfig{Rate: st.Rate, Burstiness: st.Burstiness, Concurrency: st.Concurrency,
			Requests: st.Requests, DurationS: st.Duration.Seconds()})
	}
	return mix, stages
}
