package compare

import (
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
)

// DefaultAlpha is the significance level used when none is configured.
const DefaultAlpha = 0.05

// DefaultDrift is the run-to-run drift the quantile test allows for when
// none is configured: 4% of the level (σ of the log), chosen with
// TestGateAccuracy as the smallest allowance that keeps A/A false alarms
// at or below 2% on its noise models, whose true drift is 3%.
const DefaultDrift = 0.04

// Config is how Compare judges changes.
type Config struct {
	// Alpha is the significance level a Mann-Whitney U test must reach
	// (p < Alpha) before a change past the band is called; 0 means DefaultAlpha.
	Alpha float64
	// Tolerances are the metrics compared and how far each may move.
	Tolerances []Tolerance
	// FailOnInconclusive makes inconclusive verdicts fail the gate.
	FailOnInconclusive bool
	// Drift is the run-to-run drift of a run's level, as a fraction, that
	// the quantile test adds to each side's standard error; 0 means
	// DefaultDrift.
	Drift float64
	// Only, when not empty, says the current results were narrowed on
	// purpose (--only) to the runs or scenarios these patterns select:
	// baseline runs outside it that the current file lacks are skipped,
	// not missing.
	Only []string
}

// skipped reports whether the baseline run r was left out of the current
// results on purpose: Only is set and selects neither the run nor its
// scenario.
func (c Config) skipped(r *results.Run) bool {
	return len(c.Only) > 0 && !runspec.MatchesOnly(c.Only, r.Name, r.Scenario)
}

// Tolerance is how far one metric may move in the worse direction before
// it counts as a regression.
type Tolerance struct {
	// Metric is a name of the results metric namespace, e.g. "ttft.p95".
	Metric string `json:"metric"`
	// Relative is true for bands given as a percentage; Amount is then a
	// fraction (0.10 for "10%"). Otherwise Amount is in the metric's unit.
	Relative bool    `json:"relative"`
	Amount   float64 `json:"amount"`
	// Source is where the suite sets the band (its tolerance block), for
	// annotations; zero for the defaults.
	Source runspec.Source `json:"-"`
}

// DefaultConfig is used when compare is given no suite: alpha 0.05 and
// relative bands of 10% on ttft.p95, tpot.p95 and e2el.p95 and of 5% on
// throughput.output_tokens — the latencies users feel at the tail and the
// capacity that pays for the GPU.
func DefaultConfig() Config {
	return Config{
		Alpha: DefaultAlpha,
		Tolerances: []Tolerance{
			{Metric: "ttft.p95", Relative: true, Amount: 0.10},
			{Metric: "tpot.p95", Relative: true, Amount: 0.10},
			{Metric: "e2el.p95", Relative: true, Amount: 0.10},
			{Metric: "throughput.output_tokens", Relative: true, Amount: 0.05},
		},
	}
}

func (c Config) drift() float64 {
	if c.Drift <= 0 {
		return DefaultDrift
	}
	return c.Drift
}

func (c Config) alpha() float64 {
	if c.Alpha <= 0 {
		return DefaultAlpha
	}
	return c.Alpha
}
