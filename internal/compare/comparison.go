package compare

import (
	"math"
	"slices"

	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/untrusted"
	"golang.org/x/perf/benchmath"
)

// Comparison is the outcome of comparing a current results file with a baseline.
type Comparison struct {
	// Baseline and Current are the files compared (Current is the first
	// current run; Rerun the confirming one, nil when none was made).
	Baseline, Current, Rerun *results.File
	// Config is the configuration the verdicts were reached under.
	Config Config
	// Design is how the sides were measured (DesignOf the files), which
	// chose every row's test.
	Design Design
	// Rows holds one row per run and tolerance metric, in the current
	// file's run order, then runs found only in the baseline.
	Rows []Row
	// FailedAsserts lists the current file's failed assert blocks.
	FailedAsserts []FailedAssert
	// Environment compares the metadata that decides comparability.
	Environment []EnvField
	// Warnings are problems with the comparison as a whole worth telling
	// the user that do not decide the gate by themselves (environments
	// differ, a file cut short, ...); each row holds its test's own
	// (AllWarnings gives both).
	Warnings []error
	// NotJudged lists what could not be judged; any entry makes the
	// decision DecisionError unless something failed the gate.
	NotJudged []NotJudged

	// sortedCache and testCache keep each run's sorted samples and each
	// pair's significance test while the comparison is made.
	sortedCache map[sampleKey][]float64
	testCache   map[pairKey]*benchmath.Comparison
}

// Row is the verdict on one metric of one run: which metric of which run
// against which band, the estimate of its change (ChangeEstimate), the
// evidence about it (Evidence) and the judgement (Judgement), each a part
// of its own so that what was measured, what backs it and what was
// decided are not mixed.
type Row struct {
	// Run, Scenario and Params identify the run.
	Run, Scenario string
	Params        map[string]string
	// Metric is the metric judged: its name, unit, direction and samples.
	Metric results.Metric
	// Tolerance is the band the metric was judged against.
	Tolerance Tolerance
	// BaselineImported is set when the baseline run was not measured by
	// llmgate (an imported vllm bench serve result): its figures are not
	// computed quite as llmgate's, which a reader of the row must know.
	BaselineImported *results.Imported

	ChangeEstimate
	Evidence
	Judgement

	// Confirm is the same comparison against the confirming run, when one
	// was made; Change and Delta are then the mean of both runs.
	Confirm *Row
	// Warnings are the problems of the tests that decided the row (few
	// samples, ties), each naming the run and metric; a confirming
	// rerun's test adds its own.
	Warnings []error
}

// ChangeEstimate is a row's estimate: each side's value with its interval,
// and the change between them.
type ChangeEstimate struct {
	// Baseline and Current are the values the verdict used, as Estimator
	// estimated them (NaN when a side lacks the metric).
	Baseline, Current float64
	// BaselineLo/Hi and CurrentLo/Hi bound a 95% confidence interval of each
	// side's estimate; NaN when it cannot be computed (no samples).
	BaselineLo, BaselineHi, CurrentLo, CurrentHi float64
	// Estimator is how Baseline and Current were estimated.
	Estimator Estimator
	// Change is the relative change of the estimate, signed so that
	// positive is worse: 0.12 means 12% worse whichever way the metric goes.
	Change float64
	// Delta is the change of the estimate in the metric's unit, signed so
	// that positive is worse. Absolute tolerances are judged on it.
	Delta float64
	// ChangeLo and ChangeHi bound a 95% confidence interval of Change
	// (same sign convention), from the standard errors of both estimates:
	// for quantiles Maritz-Jarrett plus Config.Drift of each level (the
	// interval the quantile test is the dual of), for means the sample's;
	// NaN without samples.
	ChangeLo, ChangeHi float64
}

// noEstimate is the estimate of a row whose metric was not estimated: no
// values, no change, no intervals.
var noEstimate = ChangeEstimate{Baseline: math.NaN(), Current: math.NaN(), Estimator: FromSummary,
	Change: math.NaN(), Delta: math.NaN(), ChangeLo: math.NaN(), ChangeHi: math.NaN(),
	BaselineLo: math.NaN(), BaselineHi: math.NaN(), CurrentLo: math.NaN(), CurrentHi: math.NaN()}

// Evidence is what backs a row's judgement: the significance test over
// the per-request samples (or a capacity search's brackets), and what a
// confirming rerun pools with its own.
type Evidence struct {
	// Test is the significance test behind P.
	Test Test
	// P is the p-value of Test over the per-request samples, NaN when no
	// test was possible; N1 and N2 are the sample sizes.
	P      float64
	N1, N2 int
	// Brackets are a capacity row's search brackets (Test SearchBrackets);
	// nil on other rows.
	Brackets *Brackets

	poolable
}

// poolable is the evidence Confirm pools over two runs, kept while the
// comparison is made and never shown.
type poolable struct {
	// seBase and seCur are the standard errors of a quantile's estimates
	// and shift whether a whole-distribution shift was significant.
	seBase, seCur float64
	shift         bool
	// shiftEst is an A/B row's shift of the whole distribution over its
	// block pairs (a fraction, positive is worse) and shiftP the one-sided
	// p-value of its paired test; NaN when none.
	shiftEst, shiftP float64
}

// Judgement is what was decided of a row.
type Judgement struct {
	// Verdict is the judgement; Reason says why, in a short phrase.
	Verdict Verdict
	Reason  untrusted.String
	// Rerun is set on an inconclusive verdict that a confirming run of
	// this run would decide (see Confirm).
	Rerun bool
	// SignificantInBand is set on an unchanged row whose change the
	// evidence found significantly worse, with its estimate inside the
	// band: the band allows it (max_regression says how much worse is
	// acceptable), so it is no regression; reports say so.
	SignificantInBand bool
}

// AllWarnings is the comparison's warnings, then each row's in row order.
func (c *Comparison) AllWarnings() []error {
	out := slices.Clone(c.Warnings)
	for i := range c.Rows {
		out = append(out, c.Rows[i].Warnings...)
	}
	return out
}

// Significant reports whether the row's test reached p < alpha.
func (r *Row) Significant(alpha float64) bool { return r.P < alpha }

// Tested reports whether a significance test was made.
func (r *Row) Tested() bool { return r.P == r.P } // not NaN

// FailedAssert is a failed assert block of a current run.
type FailedAssert struct {
	Run    string               `json:"run"`
	Assert results.AssertResult `json:"assert"`
}

// EnvField is one environment attribute of both files.
type EnvField struct {
	// Name is a display name ("image", "vLLM version", ...).
	Name     string           `json:"name"`
	Baseline untrusted.String `json:"baseline"`
	Current  untrusted.String `json:"current"`
	// Differs is true when both are known and not equal.
	Differs bool `json:"differs"`
}

// Counts tallies a comparison's verdicts.
type Counts struct {
	// ByVerdict counts rows per verdict.
	ByVerdict map[Verdict]int
	// Metrics is the number of rows.
	Metrics int
	// FailedAsserts counts failed asserts in the current file.
	FailedAsserts int
	// Reruns counts the distinct runs a confirming rerun would decide.
	Reruns int
}

// Counts tallies the comparison's verdicts.
func (c *Comparison) Counts() Counts {
	n := Counts{ByVerdict: map[Verdict]int{}, Metrics: len(c.Rows), FailedAsserts: len(c.FailedAsserts)}
	for _, r := range c.Rows {
		n.ByVerdict[r.Verdict]++
	}
	n.Reruns = len(c.RerunRuns())
	return n
}

// RerunRuns returns the names of the runs, in order, whose inconclusive
// verdicts a confirming run would decide. The gate reruns just these runs
// (llmgate run --only NAME ...) and passes that file to Confirm.
func (c *Comparison) RerunRuns() []string {
	var names []string
	seen := map[string]bool{}
	for _, r := range c.Rows {
		if r.Rerun && !seen[r.Run] {
			seen[r.Run] = true
			names = append(names, r.Run)
		}
	}
	return names
}

// Estimator is how a row's values were estimated.
type Estimator int

// Estimators.
const (
	// FromSummary: the runs' summaries, as recorded; no per-request
	// samples on both sides, or a statistic (std, min, max, a rate) that is
	// not estimated from them.
	FromSummary Estimator = iota
	// HarrellDavisEstimator: the Harrell-Davis quantile estimate over the
	// per-request samples.
	HarrellDavisEstimator
	// SampleMean: the mean of the per-request samples.
	SampleMean
)

// String names the estimator as reports and JSON do.
func (e Estimator) String() string {
	switch e {
	case HarrellDavisEstimator:
		return "harrell-davis"
	case SampleMean:
		return "mean"
	}
	return "summary"
}

// MarshalText encodes the estimator by its name.
func (e Estimator) MarshalText() ([]byte, error) { return []byte(e.String()), nil }

// Test is the significance test a row's p-value comes from.
type Test int

// Tests.
const (
	// NoTest: no per-request samples on both sides; the band alone decides.
	NoTest Test = iota
	// MannWhitney: the Mann-Whitney U test of the whole distributions
	// (means).
	MannWhitney
	// QuantileDifference: a z test of the difference of two Harrell-Davis
	// quantile estimates with Maritz-Jarrett standard errors (quantiles):
	// evidence about the tail itself.
	QuantileDifference
	// WholeShift: Mann-Whitney on a quantile whose distribution moved as a
	// whole (the median too), which gave the smaller p-value.
	WholeShift
	// PairedBlocks: a one-sided t test over the block pairs of an A/B run
	// of the per-pair change of the metric (log ratio for relative bands,
	// difference for absolute ones).
	PairedBlocks
	// PairedShift: a one-sided test over the block pairs of an A/B run
	// of the per-pair shift of the trimmed mean log latency: evidence
	// that the whole distribution moved, which decided a quantile or mean
	// row.
	PairedShift
	// SearchBrackets: two capacity searches' brackets [answer, failed_at):
	// P is 0 when they are apart (the worse side failed at a load the other
	// met) and 1 when they are within a step of the search of each other.
	SearchBrackets
	// PairedJackknife: a one-sided t test of the change of a quantile or
	// mean over all of each side's requests in an A/B run, against its
	// grouped jackknife standard error over the block pairs (plus
	// ABSideDrift): evidence about the statistic itself.
	PairedJackknife
)

// String names the test as reports and JSON do.
func (t Test) String() string {
	switch t {
	case MannWhitney:
		return "mann-whitney"
	case QuantileDifference:
		return "maritz-jarrett"
	case WholeShift:
		return "mann-whitney (whole shift)"
	case PairedBlocks:
		return "paired t over blocks"
	case PairedShift:
		return "paired t over blocks (whole shift)"
	case SearchBrackets:
		return "search brackets"
	case PairedJackknife:
		return "jackknife over block pairs"
	}
	return "none"
}

// MarshalText encodes the test by its name.
func (t Test) MarshalText() ([]byte, error) { return []byte(t.String()), nil }
