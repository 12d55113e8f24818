package plan

import (
	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/runspec"
)

// Gate is the suite's gate block: how to compare with a baseline.
type Gate struct {
	// Baseline is the baseline results file, relative to the suite's directory.
	Baseline string
	// Alpha is the significance level needed to call a change; default 0.05.
	Alpha float64
	// FailOnInconclusive makes an inconclusive verdict fail the gate.
	FailOnInconclusive bool
	// AB is how an A/B gate (--ab-var) keeps server containers; "" means
	// the default (ABTogether for endpoints and simulators, which always
	// stay up, ABAlternate for server containers).
	AB         ABMode
	Tolerances []Tolerance
}

// Tolerance is how far one metric may move before the gate calls it a regression.
type Tolerance struct {
	// Metric is a name of the results metric namespace, e.g. "ttft.p95".
	Metric string
	// Relative is true for "10%" bands; Amount is then a fraction (0.10).
	// Otherwise Amount is absolute, in the metric's unit (ms for latencies).
	Relative bool
	Amount   float64
	// DeclRange is the tolerance block's header, for annotations.
	DeclRange runspec.Source
}

// CompareConfig is how the gate block g judges changes; a nil gate, or one
// without tolerances, gives compare.DefaultConfig's bands.
func (g *Gate) CompareConfig() compare.Config {
	cfg := compare.DefaultConfig()
	if g == nil {
		return cfg
	}
	if g.Alpha > 0 {
		cfg.Alpha = g.Alpha
	}
	cfg.FailOnInconclusive = g.FailOnInconclusive
	if len(g.Tolerances) > 0 {
		cfg.Tolerances = make([]compare.Tolerance, 0, len(g.Tolerances))
		for _, t := range g.Tolerances {
			cfg.Tolerances = append(cfg.Tolerances, compare.Tolerance{Metric: t.Metric, Relative: t.Relative, Amount: t.Amount, Source: t.DeclRange})
		}
	}
	return cfg
}
