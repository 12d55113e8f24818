package results

import (
	"slices"
	"strconv"
	"strings"
)

// MixShare is one member of a run's mix: its name and weight, and its
// workload's kind and lengths in tokens.
type MixShare struct {
	Name         string  `json:"name" text:"name"`
	Weight       float64 `json:"weight"`
	Workload     string  `json:"workload" text:"name"`
	InputTokens  int     `json:"input_tokens,omitempty"`
	OutputTokens int     `json:"output_tokens,omitempty"`
	PrefixTokens int     `json:"prefix_tokens,omitempty"`
}

// StageConfig is one stage of a run's staged load, as numbers.
type StageConfig struct {
	Rate        float64 `json:"rate,omitempty"`
	Burstiness  float64 `json:"burstiness,omitempty"`
	Concurrency int     `json:"concurrency,omitempty"`
	Requests    int     `json:"requests,omitempty"`
	DurationS   float64 `json:"duration_s,omitempty"`
}

// HasPart reports whether the load declares the part ref: a member of its
// mix, or one of its stages. False for a nil LoadConfig.
func (l *LoadConfig) HasPart(ref PartRef) bool {
	if l == nil {
		return false
	}
	switch ref.Kind {
	case PartMix:
		return slices.ContainsFunc(l.Mix, func(m MixShare) bool { return m.Name == ref.Key })
	case PartStage:
		n, err := strconv.Atoi(ref.Key)
		return err == nil && n >= 1 && n <= len(l.Stages)
	}
	return false
}

// whyPartNotMeasured is WhyNotMeasured for the metric of a part: the run
// lacks the part, or the part lacks the metric for the run-level reason.
func (m Metric) whyPartNotMeasured(s *Summary) string {
	p := s.Part(m.Part)
	if p == nil {
		if m.Part.Kind == PartStage {
			return "the run has no stage " + m.Part.Key + " with a measured request"
		}
		return "the run has no request of mix member " + strconv.Quote(m.Part.Key)
	}
	inner, ok := namespace[strings.TrimPrefix(m.Name, m.Part.Prefix())]
	if !ok {
		return "the run produced no value for it"
	}
	return inner.WhyNotMeasured(&p.Summary)
}
