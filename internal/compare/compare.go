package compare

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/aclements/go-moremath/stats"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/untrusted"
	"golang.org/x/perf/benchmath"
)

// Compare judges cur against base: for every run present in either file
// and every tolerance of cfg, one Row with a verdict, each tested by the
// design of the files (DesignOf: the two sides of an A/B job are judged
// over their block pairs, see judgePaired). A single current run
// calls a regression only when it is past ClearFactor times the band and
// significant; closer calls are Inconclusive with Rerun set, for Confirm.
// A nil base judges the asserts alone: no rows, and a warning saying so.
// Failed asserts count only on valid runs: an invalid or partial run is not
// judged, and its rows say why.
func Compare(base, cur *results.File, cfg Config) *Comparison {
	c := &Comparison{Baseline: base, Current: cur, Config: cfg, Design: DesignOf(base, cur)}
	c.notJudged()
	if base == nil {
		c.Warnings = append(c.Warnings, errNoBaseline)
		c.collectAsserts()
		return c
	}
	c.Environment, c.Warnings = envDiff(base, cur)
	if base.Partial {
		c.Warnings = append(c.Warnings, fmt.Errorf("baseline file is partial: it was cut short"))
	}
	if cur.Partial {
		c.Warnings = append(c.Warnings, fmt.Errorf("current file is partial: it was cut short"))
	}
	for _, t := range cfg.Tolerances {
		if _, ok := results.LookupMetric(t.Metric); !ok {
			c.Warnings = append(c.Warnings, fmt.Errorf("tolerance on unknown metric %q ignored", t.Metric))
		}
	}
	c.collectAsserts()
	baseRuns := runIndex(base)
	seen := map[string]bool{}
	for i := range cur.Runs {
		cr := &cur.Runs[i]
		seen[cr.Name] = true
		c.Rows = append(c.Rows, c.compareRun(baseRuns[cr.Name], cr)...)
	}
	for i := range base.Runs {
		if br := &base.Runs[i]; !seen[br.Name] && !cfg.skipped(br) {
			c.Rows = append(c.Rows, c.compareRun(br, nil)...)
		}
	}
	return c
}

// Confirm is Compare with a confirming rerun: rows of Compare(base, cur)
// that ask for a rerun are decided by the mean change over cur and rerun
// (a regression needs the mean past the band and significance over both
// runs: both Mann-Whitney tests for means, the pooled quantile difference
// or a whole shift in both runs for quantiles).
// Every other row keeps its single-run verdict. rerun need only hold the
// runs named by RerunRuns. The two sides of an A/B job (the Paired
// design) are confirmed by an A/B rerun of both, ConfirmAB; Confirm leaves
// their rows as Compare judged them, and says so.
func Confirm(base, cur, rerun *results.File, cfg Config) *Comparison {
	c := Compare(base, cur, cfg)
	c.Rerun = rerun
	baseRuns, rerunRuns := runIndex(base), runIndex(rerun)
	for i := range c.Rows {
		r := &c.Rows[i]
		if !r.Rerun {
			continue
		}
		if c.Design == Paired {
			r.Reason += "; the two sides of an A/B job are confirmed by an A/B rerun of both sides"
			continue
		}
		rr := rerunRuns[r.Run]
		if rr == nil || !rr.Valid() {
			r.Reason += "; the rerun has no valid run to confirm with"
			continue
		}
		second, ok := c.measure(baseRuns[r.Run], rr, r.Metric, r.Tolerance, false)
		if !ok {
			r.Reason += "; the rerun lacks the metric"
			continue
		}
		r.Confirm = &second
		for _, w := range second.Warnings {
			r.Warnings = append(r.Warnings, fmt.Errorf("confirming rerun: %w", w))
		}
		r.Rerun = false
		r.Change = (r.Change + second.Change) / 2
		r.Delta = (r.Delta + second.Delta) / 2
		// The mean of both intervals' bounds: a conservative interval of
		// the mean change (the exact one is narrower by up to √2).
		r.ChangeLo, r.ChangeHi = (r.ChangeLo+second.ChangeLo)/2, (r.ChangeHi+second.ChangeHi)/2
		alpha := c.Config.alpha()
		sig := (!r.Tested() || r.Significant(alpha)) && (!second.Tested() || second.Significant(alpha))
		switch {
		case r.Test == SearchBrackets:
			// two searches: one whose brackets are apart from the
			// baseline's is the evidence, the mean change the size
			sig = r.Significant(alpha) || second.Significant(alpha)
		case r.Test != MannWhitney && r.Tested() && second.Tested():
			sig = confirmQuantile(r, &second, alpha)
		}
		past := pastBand(r)
		switch {
		case past && sig && r.Test == SearchBrackets:
			r.Verdict, r.Reason = Regression, "past the band on average over two runs, one search's brackets apart from the baseline's"
		case past && sig:
			r.Verdict, r.Reason = Regression, "past the band on average over two runs, significant over both"
		case past && r.Test == SearchBrackets:
			r.Verdict, r.Reason = Inconclusive, "past the band on average over two runs, neither search's brackets apart from the baseline's"
		case past:
			r.Verdict, r.Reason = Inconclusive, "past the band on average over two runs, not significant over both"
		case bandValue(r) < -r.Tolerance.Amount && sig:
			r.Verdict, r.Reason = Improvement, "better than the band on average over two runs"
		default:
			inBand(r, "within the band on average over two runs", sig && r.Tested())
		}
	}
	return c
}

// errNoBaseline is the warning of a comparison made without a baseline.
var errNoBaseline = errors.New("no baseline: only the asserts were judged")

// collectAsserts gathers the failed asserts of the current file's valid runs.
func (c *Comparison) collectAsserts() {
	for i := range c.Current.Runs {
		cr := &c.Current.Runs[i]
		if !cr.Valid() {
			continue
		}
		for _, a := range cr.Asserts {
			if !a.Passed {
				c.FailedAsserts = append(c.FailedAsserts, FailedAssert{Run: cr.Name, Assert: a})
			}
		}
	}
}

func runIndex(f *results.File) map[string]*results.Run {
	m := map[string]*results.Run{}
	if f == nil {
		return m
	}
	for i := range f.Runs {
		m[f.Runs[i].Name] = &f.Runs[i]
	}
	return m
}

// compareRun returns one row per tolerance for a run on either side or both.
func (c *Comparison) compareRun(br, cr *results.Run) []Row {
	var rows []Row
	for _, t := range c.Config.Tolerances {
		m, ok := results.LookupMetric(t.Metric)
		if !ok {
			continue
		}
		id := cr
		if id == nil {
			id = br
		}
		row := Row{Run: id.Name, Scenario: id.Scenario, Params: id.Params, Metric: m, Tolerance: t,
			ChangeEstimate: noEstimate, Evidence: Evidence{P: math.NaN()}}
		if br != nil {
			row.BaselineImported = br.Imported
		}
		if br != nil && br.Status != results.StatusFailed {
			if v, ok := valueOf(br, m); ok {
				row.Baseline = v
			}
		}
		if cr != nil && cr.Status != results.StatusFailed {
			if v, ok := valueOf(cr, m); ok {
				row.Current = v
			}
		}
		switch {
		case br == nil:
			row.Verdict, row.Reason = New, "run not in the baseline"
		case cr == nil:
			row.Verdict, row.Reason = Missing, "run not in the current results"
		case !br.Valid():
			row.Verdict, row.Reason = Invalid, untrusted.String("baseline run is "+br.Status)+reasonSuffix(br)
		case !cr.Valid():
			row.Verdict, row.Reason = Invalid, untrusted.String("current run is "+cr.Status)+reasonSuffix(cr)
		case m.Bucket != "" && bucketsDiffer(br, cr, m.Bucket) != "":
			row.Verdict, row.Reason = Invalid, untrusted.String(bucketsDiffer(br, cr, m.Bucket))
			c.bucketNotJudged(cr.Name, row.Reason.Raw())
		default:
			pairs := c.pairs(br, cr)
			measured, ok := c.measure(br, cr, m, t, pairs > 0)
			if !ok {
				measured = row
				switch {
				case math.IsNaN(row.Baseline) && math.IsNaN(row.Current):
					if !m.AppliesTo(br) && !m.AppliesTo(cr) {
						continue // not a metric of these runs (a turn metric without conversations, a bucket they lack)
					}
					measured.Verdict, measured.Reason = NotMeasured, untrusted.String(notMeasuredReason(br, cr, m))
				case math.IsNaN(row.Baseline):
					measured.Verdict, measured.Reason = New, untrusted.String("metric not in the baseline run: "+whyNot(br, m))
				default:
					measured.Verdict, measured.Reason = Missing, untrusted.String("metric not in the current run: "+whyNot(cr, m))
				}
			} else if pairs > 0 {
				c.measurePaired(&measured, br, cr, pairs, 1)
				c.judgePaired(&measured, false)
			} else {
				c.judge(&measured)
			}
			measured.BaselineImported = row.BaselineImported
			row = measured
		}
		rows = append(rows, row)
	}
	return rows
}

// notMeasuredReason says why neither run has m: once when both sides say
// the same, else each side's.
func notMeasuredReason(br, cr *results.Run, m results.Metric) string {
	b, c := whyNot(br, m), whyNot(cr, m)
	if b == c {
		return "neither run measured it: " + c
	}
	return "neither run measured it: baseline: " + b + "; current: " + c
}

// whyNot says why run has no value of m for a comparison.
func whyNot(run *results.Run, m results.Metric) string {
	if why := m.WhyNotMeasured(&run.Summary); why != "" {
		return why
	}
	return "the run kept no per-request samples of it" // valueOf's rule
}

// reasonSuffix is ": " and why r was not judged, as its file says it.
func reasonSuffix(r *results.Run) untrusted.String {
	switch {
	case len(r.InvalidReasons) > 0:
		return untrusted.String(": " + strings.Join(r.InvalidReasons, "; "))
	case r.Error != "":
		return ": " + r.Error
	}
	return ""
}

// judge sets a single-run verdict on a measured row.
func (c *Comparison) judge(r *Row) {
	alpha, band := c.Config.alpha(), r.Tolerance.Amount
	v := bandValue(r)
	sig := !r.Tested() || r.Significant(alpha)
	evidence := "and significant"
	if !r.Tested() {
		evidence = "(no samples to test; the band alone decides)"
	}
	switch {
	case v > ClearFactor*band && sig && pastBand(r):
		r.Verdict, r.Reason = Regression, untrusted.String("past twice the band "+evidence)
	case v > band && !sig:
		r.Verdict, r.Reason, r.Rerun = Inconclusive, "past the band but not significant (p ≥ alpha); rerun to confirm", true
	case v > RerunFraction*band:
		r.Verdict, r.Reason, r.Rerun = Inconclusive, "near or past the band, within run-to-run drift; rerun to confirm", true
	case v < -band && sig:
		r.Verdict, r.Reason = Improvement, untrusted.String("better than the band "+evidence)
	case v < -band:
		r.Verdict, r.Reason = Unchanged, "better than the band but not significant"
	default:
		inBand(r, "within the band", r.Tested() && sig)
	}
}

// measure estimates the metric on both runs and, unless paired (the
// caller tests the block pairs, measurePaired), tests the difference over
// the requests of both, the test's warnings going with the row. It
// returns false when either run lacks the metric.
func (c *Comparison) measure(br, cr *results.Run, m results.Metric, t Tolerance, paired bool) (Row, bool) {
	r := Row{Run: cr.Name, Scenario: cr.Scenario, Params: cr.Params, Metric: m, Tolerance: t, Evidence: Evidence{P: math.NaN()}}
	bSum, ok1 := valueOf(br, m)
	cSum, ok2 := valueOf(cr, m)
	if !ok1 || !ok2 {
		return r, false
	}
	bs, cs := c.sorted(br, m), c.sorted(cr, m)
	be, ce := estimate(m, bSum, bs), estimate(m, cSum, cs)
	if be.estimator != ce.estimator { // one side lacks samples: both use the summaries
		be, ce = fromSummary(bSum), fromSummary(cSum)
	}
	r.Estimator = be.estimator
	r.Baseline, r.BaselineLo, r.BaselineHi = be.v, be.lo, be.hi
	r.Current, r.CurrentLo, r.CurrentHi = ce.v, ce.lo, ce.hi
	sign := m.Better.WorseSign()
	r.Delta = sign * (ce.v - be.v)
	switch {
	case be.v != 0:
		r.Change = r.Delta / math.Abs(be.v)
	case r.Delta == 0:
		r.Change = 0
	default:
		r.Change = math.Copysign(math.Inf(1), r.Delta)
	}
	r.ChangeLo, r.ChangeHi = math.NaN(), math.NaN()
	if r.Estimator != FromSummary {
		// The change's 95% interval, from both estimates' standard errors.
		if se := math.Hypot(be.se, ce.se); se > 0 && be.v != 0 {
			lo, hi := r.Delta-1.96*se, r.Delta+1.96*se
			r.ChangeLo, r.ChangeHi = lo/math.Abs(be.v), hi/math.Abs(be.v)
		}
		if !paired {
			c.unpairedTest(&r, br, cr, bs, cs, be, ce)
		}
	}
	if m.Family == results.CapacityFamily && br.Capacity != nil && cr.Capacity != nil {
		testCapacity(&r, br.Capacity, cr.Capacity)
	}
	return r, true
}

// unpairedTest tests the row's change over the sorted requests bs of br
// and cs of cr, whose estimates are be and ce: the quantile test for a
// quantile, Mann-Whitney for a mean; its warnings (and one when a side has
// fewer than MinSamples requests) go with the row.
func (c *Comparison) unpairedTest(r *Row, br, cr *results.Run, bs, cs []float64, be, ce estimated) {
	m := r.Metric
	if m.Stat == results.StatQuantile {
		c.quantileTest(r, br, cr, bs, cs, be, ce)
	} else {
		cmp := c.mannWhitney(br, cr, m, bs, cs)
		r.Test, r.P, r.N1, r.N2 = MannWhitney, cmp.P, cmp.N1, cmp.N2
		for _, w := range cmp.Warnings {
			r.Warnings = append(r.Warnings, fmt.Errorf("run %s, %s: %w", cr.Name, m.Name, w))
		}
	}
	if min(len(bs), len(cs)) < MinSamples {
		r.Warnings = append(r.Warnings, fmt.Errorf("run %s, %s: only %d baseline and %d current samples; at least %d make the test trustworthy",
			cr.Name, m.Name, len(bs), len(cs), MinSamples))
	}
}

// valueOf returns the metric's value in run's summary, and false when the
// run does not have it. A latency statistic of exactly 0 ms in a run
// without samples was not measured: an imported `vllm bench serve` file
// holds only the percentiles it was asked for (p99 by default) and no e2el
// unless asked, and judging a real value against that 0 would call every
// comparison a regression.
func valueOf(run *results.Run, m results.Metric) (float64, bool) {
	v, ok := m.Value(&run.Summary)
	if ok && v == 0 && m.Family.Latency() && len(m.Samples(run)) == 0 {
		return 0, false
	}
	return v, ok
}

// sampleKey names one run's samples of one family (of one length bucket).
type sampleKey struct {
	run *results.Run
	set sampleSet
}

// sampleSet names the per-request values a metric's samples are: its
// family, for a length bucket's metrics the bucket and the latency, and
// for a mix member's or a stage's the part.
type sampleSet struct {
	family results.Family
	bucket string
	of     results.Family
	part   results.PartRef
}

func samplesOf(m results.Metric) sampleSet { return sampleSet{m.Family, m.Bucket, m.Of, m.Part} }

// sorted returns run's per-request samples of m's family, sorted, or nil;
// each is sorted once per comparison, however many statistics read it.
func (c *Comparison) sorted(run *results.Run, m results.Metric) []float64 {
	xs := m.Samples(run)
	if len(xs) == 0 {
		return nil
	}
	k := sampleKey{run, samplesOf(m)}
	if s, ok := c.sortedCache[k]; ok {
		return s
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if c.sortedCache == nil {
		c.sortedCache = map[sampleKey][]float64{}
	}
	c.sortedCache[k] = s
	return s
}

// pairKey names the samples of one family of a baseline and a current run.
type pairKey struct {
	base, cur *results.Run
	set       sampleSet
}

// mannWhitney tests the sorted samples bs of br against cs of cr, once per
// comparison for each family: every statistic of a family shares the test.
func (c *Comparison) mannWhitney(br, cr *results.Run, m results.Metric, bs, cs []float64) *benchmath.Comparison {
	k := pairKey{br, cr, samplesOf(m)}
	if cmp, ok := c.testCache[k]; ok {
		return cmp
	}
	th := &benchmath.Thresholds{CompareAlpha: c.Config.alpha()}
	// NewSample sorts its slice in place: give it copies (already sorted, so cheap).
	cmp := benchmath.AssumeNothing.Compare(benchmath.NewSample(slices.Clone(bs), th), benchmath.NewSample(slices.Clone(cs), th))
	if c.testCache == nil {
		c.testCache = map[pairKey]*benchmath.Comparison{}
	}
	c.testCache[k] = &cmp
	return &cmp
}

// estimated is one side's estimate of a metric with a 95% confidence
// interval (NaN bounds when none), its standard error (0 when none) and
// the estimator that made it.
type estimated struct {
	v, lo, hi, se float64
	estimator     Estimator
}

func fromSummary(v float64) estimated {
	return estimated{v: v, lo: math.NaN(), hi: math.NaN(), estimator: FromSummary}
}

// estimate is the value compare judges a metric on. Quantiles use
// Harrell-Davis with a distribution-free order-statistic interval and the
// Maritz-Jarrett standard error, means the sample mean with a normal
// interval; other statistics (std, min, max),
// run-level values and metrics without samples keep the summary's value.
// sorted must be in ascending order.
func estimate(m results.Metric, summary float64, sorted []float64) estimated {
	if len(sorted) == 0 {
		return fromSummary(summary)
	}
	switch m.Stat {
	case results.StatQuantile:
		ci := stats.QuantileCI(len(sorted), m.Quantile, 0.95)
		_, lo, hi := ci.SampleCI(stats.Sample{Xs: sorted, Sorted: true})
		v, se := HarrellDavisSE(sorted, m.Quantile)
		return estimated{v: v, lo: finite(lo), hi: finite(hi), se: zeroIfNaN(se), estimator: HarrellDavisEstimator}
	case results.StatMean:
		s := stats.Sample{Xs: sorted, Sorted: true}
		mean, sd := s.Mean(), s.StdDev()
		se := zeroIfNaN(sd / math.Sqrt(float64(len(sorted))))
		return estimated{v: mean, lo: mean - 1.96*se, hi: mean + 1.96*se, se: se, estimator: SampleMean}
	}
	return fromSummary(summary)
}

func zeroIfNaN(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}

func finite(v float64) float64 {
	if math.IsInf(v, 0) {
		return math.NaN()
	}
	return v
}
