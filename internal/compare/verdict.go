package compare

// Verdict is the judgement on one metric of one run.
type Verdict string

// Verdicts, from the worst down.
const (
	// Regression: worse past the band and significant (or past twice the
	// band in one run, or past the band on average over a confirming rerun).
	// Never a change whose estimate is inside the band (see pastBand).
	Regression Verdict = "regression"
	// Inconclusive: near or past the band without enough evidence either
	// way. When Row.Rerun is set, a confirming run (see Confirm) decides.
	Inconclusive Verdict = "inconclusive"
	// Invalid: either side's run may not be judged (its load generator
	// failed its self-checks, or the run failed or was cut short).
	Invalid Verdict = "invalid"
	// Missing: the baseline has the run or metric, the current file not.
	Missing Verdict = "missing"
	// New: the current file has the run or metric, the baseline not.
	New Verdict = "new"
	// NotMeasured: the metric is one of the run's, but neither side could
	// measure it (no /metrics, every answer in one chunk for ITL); the
	// row's reason says why.
	NotMeasured Verdict = "not measured"
	// Improvement: better past the band and significant.
	Improvement Verdict = "improvement"
	// Unchanged: within the band (Row.SignificantInBand when significantly
	// worse), or not significantly outside it.
	Unchanged Verdict = "unchanged"
)

// Verdicts lists every verdict, from the worst down, for stable ordering.
var Verdicts = []Verdict{Regression, Inconclusive, Invalid, Missing, New, NotMeasured, Improvement, Unchanged}

// Rank orders verdicts by severity: 0 is Regression, larger is milder.
func (v Verdict) Rank() int {
	for i, w := range Verdicts {
		if v == w {
			return i
		}
	}
	return len(Verdicts)
}

// The confirm-by-rerun rule (see docs/comparing.md and TestGateAccuracy,
// which measures it): one run calls a regression only past ClearFactor
// times the band; from RerunFraction of the band up, it asks for a
// confirming run, and the mean change of the two runs decides.
const (
	// ClearFactor times the band, significant, is a regression from a single run.
	ClearFactor = 2.0
	// RerunFraction of the band is where a single run asks for confirmation:
	// run-to-run drift alone moves p95 that far often enough to matter.
	RerunFraction = 0.75
	// MinSamples is the fewest per-request samples a side should have
	// before its significance test is trusted; fewer gives a warning.
	MinSamples = 30
)
