package compare

import (
	"math"
	"slices"

	"github.com/aclements/go-moremath/stats"
	"github.com/llmgate/llmgate/results"
)

// ABShiftFraction is how far, as a fraction of a relative band, the whole
// latency distribution must have moved in an A/B comparison, consistently
// over the block pairs, for that shift to be the evidence of a regression
// whose estimate is past the band: a distribution that moved as a whole
// moved its quantiles as far, and the shift of every request is measured
// far more precisely than a tail quantile. Chosen with TestABGateAccuracy:
// at 1, a shift past the band too, 1% of gates fail at half the band on
// lognormal noise and 4% under heavy tails (at 0.7, 8% and 15%), with
// detection at 1.5 times the band the same, which the p95 estimate's own
// spread limits (docs/ab-testing.md has the trade-off).
const ABShiftFraction = 1.0

// ABShiftRerunFraction is where, as a fraction of a relative band, a
// significant whole shift asks for a confirming A/B rerun when it is no
// regression yet (short of ABShiftFraction, or with the estimate inside
// the band): the pairs of both jobs then measure the shift and the
// estimate with √2 less error, and decide (TestABGateAccuracy: at 1.5
// times the band 93% of gates fail on lognormal noise, 81% without it).
const ABShiftRerunFraction = 0.5

// ABStatisticAlpha scales alpha for the test of an A/B row's statistic
// itself: its change must be significant at alpha·ABStatisticAlpha (0.01
// at the usual 0.05) over the block pairs, however far past the band. A
// tail quantile of a job moves far in either direction with a few slow
// requests; chosen with TestABGateAccuracy.
const ABStatisticAlpha = 0.2

// ABSideDrift is the allowance, as a σ of log per side, for a persistent
// difference between the two sides of one A/B job that no pairing can
// see, because it is the same in every block (each server keeps its own
// share of slow requests for the whole job). It widens the test of the
// statistic itself as Config.Drift widens a baseline-file comparison; a
// confirming A/B rerun halves its variance (two jobs, two draws). Measured
// on TestABGateAccuracy's tails-per-side noise: the p95 change of 2 × 200
// requests spreads by 0.160 (σ of log) over jobs where the jackknife over
// the pairs sees 0.124, an excess of 0.10 for the difference, 0.07 a side.
// It applies to the tail and the mean (sideDrifts); the body and the whole
// shift, a trimmed mean, which a few slow requests hardly move, take none.
const ABSideDrift = 0.07

// heldPairs is the number of block pairs an A/B comparison of br and cr
// can judge: both runs split into blocks, as many on each side; 0 when
// they are not the two sides of an A/B run (or have fewer than two pairs,
// too few for a paired test).
func heldPairs(br, cr *results.Run) int {
	n := len(br.Blocks)
	if n < 2 || len(cr.Blocks) != n {
		return 0
	}
	return n
}

// blockValue is the metric's estimate on one block, as measure estimates
// it on a whole run; false when the block lacks it.
func blockValue(m results.Metric, b *results.Block) (float64, bool) {
	v, ok := m.Value(&b.Summary)
	if !ok {
		return 0, false
	}
	run := results.Run{Samples: b.Samples}
	if xs := m.Samples(&run); len(xs) > 0 {
		s := slices.Clone(xs)
		slices.Sort(s)
		return estimate(m, v, s).v, true
	}
	return v, true
}

// trimFraction is the share of a block's requests trimmed off each end
// before the mean of their log latencies: slow requests (preemptions, a
// cold cache), up to a fifth of a block, then hardly move its level.
const trimFraction = 0.2

// trimmedMeanLog is the trimFraction-trimmed mean of the logarithms of the
// positive values of xs, and false when there are none.
func trimmedMeanLog(xs []float64) (float64, bool) {
	logs := make([]float64, 0, len(xs))
	for _, x := range xs {
		if x > 0 {
			logs = append(logs, math.Log(x))
		}
	}
	if len(logs) == 0 {
		return 0, false
	}
	slices.Sort(logs)
	cut := int(trimFraction * float64(len(logs)))
	return stats.Mean(logs[cut : len(logs)-cut]), true
}

// measurePaired replaces the row's test by the paired tests of an A/B
// comparison over its block pairs (jobs is how many A/B jobs they come
// from: 2 for a confirming rerun joined to the first job).
//
// The statistic itself: for a mean or quantile of per-request samples,
// the change of the estimates over all of each side's requests is tested
// against its grouped jackknife standard error over the pairs (both
// sides' blocks of one pair left out at a time), which holds every source
// of variance that differs between pairs (request sampling, the blocks'
// levels, a block's share of slow requests), widened by ABSideDrift for
// what is the same in every pair (on the tail and the mean), with a t
// distribution of pairs-1 degrees of freedom (PairedJackknife); its
// Change stays that change, and ChangeLo/ChangeHi become the test's 95%
// interval. Other metrics
// (counts and rates without samples) take the per-pair change of the
// metric (PairedBlocks).
//
// The whole shift: for latency statistics on a relative band, the
// per-pair shift of the trimmed mean log latency (PairedShift), which
// judgePaired reads when the shift decides the row.
func (c *Comparison) measurePaired(r *Row, br, cr *results.Run, pairs, jobs int) {
	m := r.Metric
	sign := m.Better.WorseSign()
	var diffs, shifts []float64
	for k := range pairs {
		bb, cb := &br.Blocks[k], &cr.Blocks[k]
		bv, ok1 := blockValue(m, bb)
		cv, ok2 := blockValue(m, cb)
		if ok1 && ok2 {
			switch {
			case !r.Tolerance.Relative:
				diffs = append(diffs, sign*(cv-bv))
			case bv > 0 && cv > 0:
				diffs = append(diffs, sign*math.Log(cv/bv))
			}
		}
		if m.HasSamples() && r.Tolerance.Relative && (m.Stat == results.StatQuantile || m.Stat == results.StatMean) {
			bl, ok1 := trimmedMeanLog(m.Samples(&results.Run{Samples: bb.Samples}))
			cl, ok2 := trimmedMeanLog(m.Samples(&results.Run{Samples: cb.Samples}))
			if ok1 && ok2 {
				shifts = append(shifts, sign*(cl-bl))
			}
		}
	}
	r.Test, r.P, r.N1, r.N2 = PairedBlocks, pairsP(diffs), len(diffs), len(diffs)
	if est, se, ok := jackknifePairs(r, br, cr, pairs, jobs); ok {
		df := float64(pairs - 1)
		r.Test, r.P, r.N1, r.N2 = PairedJackknife, tP(est, se, df), pairs, pairs
		t := stats.InvCDF(stats.TDist{V: df})(0.975)
		lo, hi := est-t*se, est+t*se
		if r.Tolerance.Relative {
			lo, hi = math.Expm1(lo), math.Expm1(hi)
		} else {
			lo, hi = lo/math.Abs(r.Baseline), hi/math.Abs(r.Baseline)
		}
		r.ChangeLo, r.ChangeHi = lo, hi
	}
	r.shiftEst, r.shiftP = math.NaN(), math.NaN()
	if len(shifts) == pairs {
		r.shiftEst, r.shiftP = math.Expm1(stats.Mean(shifts)), pairsP(shifts)
	}
}

// jackknifePairs is the row's change over all requests, worse-positive
// (the log ratio of the estimates for a relative band, their difference
// for an absolute one), with its grouped jackknife standard error over the
// block pairs widened by ABSideDrift for jobs A/B jobs; false when the
// metric is not a mean or quantile of samples both sides have in every
// block, or the estimates are not positive on a relative band.
func jackknifePairs(r *Row, br, cr *results.Run, pairs, jobs int) (est, se float64, ok bool) {
	m := r.Metric
	if pairs < 2 || !m.HasSamples() || (m.Stat != results.StatQuantile && m.Stat != results.StatMean) {
		return 0, 0, false
	}
	sign := m.Better.WorseSign()
	change := func(b, c float64) (float64, bool) {
		if !r.Tolerance.Relative {
			return sign * (c - b), true
		}
		if b <= 0 || c <= 0 {
			return 0, false
		}
		return sign * math.Log(c/b), true
	}
	est, ok = change(r.Baseline, r.Current)
	if !ok {
		return 0, 0, false
	}
	blockSamples := func(run *results.Run) ([][]float64, bool) {
		xs := make([][]float64, pairs)
		for k := range pairs {
			if xs[k] = m.Samples(&results.Run{Samples: run.Blocks[k].Samples}); len(xs[k]) == 0 {
				return nil, false
			}
		}
		return xs, true
	}
	bx, ok1 := blockSamples(br)
	cx, ok2 := blockSamples(cr)
	if !ok1 || !ok2 {
		return 0, 0, false
	}
	// leaveOut is the estimate over every block of a side but pair k's.
	leaveOut := func(xs [][]float64, k int) float64 {
		var all []float64
		for i, x := range xs {
			if i != k {
				all = append(all, x...)
			}
		}
		if m.Stat == results.StatMean {
			return stats.Mean(all)
		}
		slices.Sort(all)
		return HarrellDavis(all, m.Quantile) // estimate's value, without its interval
	}
	loo := make([]float64, pairs)
	for k := range pairs {
		if loo[k], ok = change(leaveOut(bx, k), leaveOut(cx, k)); !ok {
			return 0, 0, false
		}
	}
	mean := stats.Mean(loo)
	var ss float64
	for _, x := range loo {
		ss += (x - mean) * (x - mean)
	}
	n := float64(pairs)
	varJ := (n - 1) / n * ss
	// The allowance: each side's tail moves by ABSideDrift (σ of log) per
	// job, the same in all its pairs; averaged over jobs.
	if sideDrifts(m) {
		side := ABSideDrift
		if !r.Tolerance.Relative {
			side *= math.Abs(r.Baseline)
		}
		varJ += 2 * side * side / float64(max(jobs, 1))
	}
	return est, math.Sqrt(varJ), true
}

// sideDrifts reports whether ABSideDrift applies to m: a share of slow
// requests moves the tail (quantiles from p90) and the mean, but hardly
// the body (from 1% to 4% of requests slowed ×2–4, the p95 of
// TestABGateAccuracy's lognormal moves by 13%, its median by 1%).
func sideDrifts(m results.Metric) bool {
	return m.Stat == results.StatMean || (m.Stat == results.StatQuantile && m.Quantile >= 0.9)
}

// tP is the one-sided p-value that est, with standard error se and df
// degrees of freedom of a t distribution, is above 0 (worse).
func tP(est, se, df float64) float64 {
	if se <= 0 || math.IsNaN(se) {
		switch {
		case est > 0:
			return 0
		case est < 0:
			return 1
		}
		return 0.5
	}
	return 1 - stats.TDist{V: df}.CDF(est/se)
}

// minSignedRankPairs is the fewest pairs the signed-rank test judges:
// below it, its smallest p-value (2^-n) cannot reach alpha·ABStatisticAlpha.
const minSignedRankPairs = 8

// pairsP is the one-sided p-value that the per-pair changes xs are worse
// than 0: Wilcoxon's signed-rank test from minSignedRankPairs pairs on, a
// t test below (fewer pairs than a rank test can judge).
func pairsP(xs []float64) float64 {
	if len(xs) >= minSignedRankPairs {
		return signedRankP(xs)
	}
	return pairedP(xs)
}

// pairedP is the one-sided p-value of a t test that the mean of xs is
// above 0 (worse); NaN with fewer than two values, 0 or 1 when they are
// all alike.
func pairedP(xs []float64) float64 {
	if len(xs) < 2 {
		return math.NaN()
	}
	s := stats.Sample{Xs: xs}
	if sd := s.StdDev(); sd == 0 || math.IsNaN(sd) {
		switch mean := s.Mean(); {
		case mean > 0:
			return 0
		case mean < 0:
			return 1
		}
		return 0.5
	}
	res, err := stats.OneSampleTTest(s, 0, stats.LocationGreater)
	if err != nil {
		return math.NaN()
	}
	return res.P
}

// judgePaired sets an A/B verdict on a measured row; final says no rerun
// can follow (the row is judged over both jobs' pairs). A regression is
// the change past the band (pastBand) with evidence that it got worse:
//   - the statistic's own test significant at alpha·ABStatisticAlpha over
//     the block pairs, or
//   - the whole distribution shifted past ABShiftFraction of the band,
//     significantly over the pairs (at alpha), with the statistic itself
//     not significantly better (a body that moved while the tail
//     improved is no tail regression).
//
// A shift never makes a regression of a change whose estimate is inside
// the band. Past the band without the evidence, or a significant whole
// shift from ABShiftRerunFraction of the band that is no regression, is
// inconclusive and asks for a rerun, as a single run's is; once final, a
// change inside the band is unchanged (marked SignificantInBand when the
// evidence found it worse). An improvement is the change better than the
// band and significant.
func (c *Comparison) judgePaired(r *Row, final bool) {
	alpha, band := c.Config.alpha(), r.Tolerance.Amount
	v := bandValue(r)
	sig := r.Tested() && r.P < alpha*ABStatisticAlpha
	better := r.Tested() && 1-r.P < alpha
	shiftSig := r.shiftP < alpha && !better
	shifted := shiftSig && r.shiftEst > ABShiftFraction*band
	byShift := func() { r.Test, r.P = PairedShift, r.shiftP } // the shift is the evidence the row gives
	switch {
	case pastBand(r) && sig:
		r.Verdict, r.Reason = Regression, "worse than the band over the A/B block pairs and significant"
	case pastBand(r) && shifted:
		byShift()
		r.Verdict, r.Reason = Regression, "worse than the band, the whole distribution shifted past it over the A/B block pairs, significantly"
	case pastBand(r) && final:
		r.Verdict, r.Reason = Inconclusive, "past the band but not significant over the A/B block pairs"
	case pastBand(r):
		r.Verdict, r.Reason, r.Rerun = Inconclusive, "past the band but not significant over the A/B block pairs; rerun to confirm", true
	case !final && shiftSig && r.shiftEst > ABShiftRerunFraction*band:
		byShift()
		r.Verdict, r.Reason, r.Rerun = Inconclusive, "within the band, the whole distribution shifted significantly over the A/B block pairs near it or past it; rerun to confirm", true
	case v < -band && better:
		r.Verdict, r.Reason = Improvement, "better than the band over the A/B block pairs and significant"
	case v < -band:
		r.Verdict, r.Reason = Unchanged, "better than the band but not significant over the A/B block pairs"
	default:
		if shiftSig && !sig {
			byShift()
		}
		inBand(r, "within the band over the A/B block pairs", sig || shiftSig)
	}
}

// ConfirmAB is Compare of the two sides of an A/B job with a confirming
// A/B rerun of both: rows of Compare(base, cur) that ask for a rerun are
// judged again over the block pairs of both jobs together (the rerun's
// pairs after the first job's), so that both jobs' evidence decides;
// every other row keeps its verdict. rerunBase and rerunCur need only hold
// the runs named by RerunRuns. The row's Confirm is the rerun's own row.
//
// Files that are not the two sides of an A/B job (the Unpaired design) are
// confirmed as Confirm confirms them, by the rerun's current side.
func ConfirmAB(base, cur, rerunBase, rerunCur *results.File, cfg Config) *Comparison {
	if DesignOf(base, cur) != Paired {
		return Confirm(base, cur, rerunCur, cfg)
	}
	c := Compare(base, cur, cfg)
	c.Rerun = rerunCur
	baseRuns, curRuns := runIndex(base), runIndex(cur)
	rbRuns, rcRuns := runIndex(rerunBase), runIndex(rerunCur)
	for i := range c.Rows {
		r := &c.Rows[i]
		if !r.Rerun {
			continue
		}
		rb, rc := rbRuns[r.Run], rcRuns[r.Run]
		if rb == nil || rc == nil || !rb.Valid() || !rc.Valid() || heldPairs(rb, rc) == 0 {
			r.Reason += "; the A/B rerun has no valid run to confirm with"
			continue
		}
		second, ok := c.measure(rb, rc, r.Metric, r.Tolerance, true)
		if !ok {
			r.Reason += "; the rerun lacks the metric"
			continue
		}
		c.measurePaired(&second, rb, rc, heldPairs(rb, rc), 1)
		c.judgePaired(&second, false)
		bb, cb := joinBlocks(baseRuns[r.Run], rb), joinBlocks(curRuns[r.Run], rc)
		both, ok := c.measure(bb, cb, r.Metric, r.Tolerance, true)
		if !ok {
			continue
		}
		c.measurePaired(&both, bb, cb, heldPairs(bb, cb), 2)
		c.judgePaired(&both, true)
		both.Confirm = &second
		both.Reason += " (over both A/B jobs)"
		*r = both
	}
	return c
}

// joinBlocks is run a followed by the blocks of run b, as one run: its
// blocks renumbered as pairs after a's, summary and samples merged.
func joinBlocks(a, b *results.Run) *results.Run {
	j := *a
	j.Blocks = slices.Clone(a.Blocks)
	for _, blk := range b.Blocks {
		blk.Pair += len(a.Blocks)
		j.Blocks = append(j.Blocks, blk)
	}
	j.Summary, j.Samples = results.MergeBlocks(j.Blocks)
	return &j
}

// InOneJob reports whether the comparison is of the two sides of an A/B
// run measured in one job (the Paired design): its rows are judged over
// block pairs, and the environments differ on purpose.
func (c *Comparison) InOneJob() bool { return c.Design == Paired }
