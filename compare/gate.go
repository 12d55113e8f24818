package compare

import "github.com/llmgate/llmgate/suite"

// ConfigFromGate builds a Config from a suite's gate block; a nil gate, or
// one without tolerances, gives DefaultConfig's bands.
func ConfigFromGate(g *suite.Gate) Config {
	cfg := DefaultConfig()
	if g == nil {
		return cfg
	}
	if g.Alpha > 0 {
		cfg.Alpha = g.Alpha
	}
	cfg.FailOnInconclusive = g.FailOnInconclusive
	if len(g.Tolerances) > 0 {
		cfg.Tolerances = make([]Tolerance, 0, len(g.Tolerances))
		for _, t := range g.Tolerances {
			tol := Tolerance{Metric: t.Metric, Relative: t.Relative, Amount: t.Amount}
			if t.DeclRange.Filename != "" {
				rng := t.DeclRange
				tol.Source = &rng
			}
			cfg.Tolerances = append(cfg.Tolerances, tol)
		}
	}
	return cfg
}
