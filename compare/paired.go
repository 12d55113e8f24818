package compare

import (
	"math"
	"slices"

	"github.com/aclements/go-moremath/stats"
	"github.com/llmgate/llmgate/results"
)

// ABShiftFraction is how far, as a fraction of a relative band, the whole
// latency distribution must have moved in an A/B comparison, consistently
// over the block pairs, for a row to be called a regression on that
// evidence alone. An A/B run measures both sides in the same job, so its
// change is free of the run-to-run drift that makes a single
// baseline-file comparison stop at the band; chosen with
// TestABGateAccuracy as the smallest fraction that keeps A/A false alarms
// at or below 1% on its noise models.
const ABShiftFraction = 0.65

// ABNearBandAlpha scales alpha for an A/B row past the band but within
// ClearFactor times it: its per-pair changes must be significant at
// alpha·ABNearBandAlpha (0.01 at the usual 0.05), chosen with
// TestABGateAccuracy to keep heavy-tailed A/A false alarms near 1%.
const ABNearBandAlpha = 0.2

// abPairs is the number of block pairs an A/B comparison of br and cr
// can judge: both runs split into blocks, as many on each side; 0 when
// they are not the two sides of an A/B run (or have fewer than two pairs,
// too few for a paired test).
func abPairs(br, cr *results.Run) int {
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
// before the mean of their log latencies: a few slow requests (a
// preemption, a cold cache) then move a block's level by little.
const trimFraction = 0.1

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
// comparison over its block pairs: the per-pair change of the metric
// (PairedBlocks) and, for latency statistics on a relative band, the
// per-pair shift of the mean log latency (PairedShift), which judgePaired
// reads when the shift decides the row. Its Change stays the change of the estimates
// over all of each side's requests: with the blocks in a balanced order,
// a drift linear in time weighs on both sides alike.
func (c *Comparison) measurePaired(r *Row, br, cr *results.Run, pairs int) {
	m := r.Metric
	sign := 1.0
	if m.Better == results.HigherIsBetter {
		sign = -1
	}
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
	r.shiftEst, r.shiftP = math.NaN(), math.NaN()
	if len(shifts) == pairs {
		r.shiftEst, r.shiftP = math.Expm1(stats.Mean(shifts)), pairsP(shifts)
	}
}

// minSignedRankPairs is the fewest pairs the signed-rank test judges:
// below it, its smallest p-value (2^-n) cannot reach alpha·ABNearBandAlpha.
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

// judgePaired sets an A/B verdict on a measured row. A regression is the
// change past the band with the per-pair changes significantly worse, or
// the whole distribution shifted by ABShiftFraction of the band,
// significantly over the pairs, with the statistic itself not clearly
// better (not past half the band the other way). Past the
// band without significance is inconclusive and asks for a rerun, as a
// single run's is; an improvement is the change better than the band.
func (c *Comparison) judgePaired(r *Row) {
	alpha, band := c.Config.alpha(), r.Tolerance.Amount
	v := bandValue(r)
	// Past the band, but not past twice it, a regression needs the pairs
	// to agree more strongly: a tail statistic of a block is a few
	// requests, and heavy tails move it far in either direction.
	need := alpha
	if v <= ClearFactor*band {
		need = alpha * ABNearBandAlpha
	}
	sig := r.Tested() && r.P < need
	shifted := r.shiftP < alpha && r.shiftEst > ABShiftFraction*band && v > -band/2
	if shifted && !(v > band && sig) {
		r.Test, r.P = PairedShift, r.shiftP // the evidence that decided
	}
	switch {
	case v > band && sig, shifted:
		r.Verdict, r.Reason = Regression, "worse than the band over the A/B block pairs and significant"
		if shifted && v <= band {
			r.Reason = "the whole distribution shifted over the A/B block pairs, significantly"
		}
	case v > band:
		r.Verdict, r.Reason, r.Rerun = Inconclusive, "past the band but not significant over the A/B block pairs; rerun to confirm", true
	case v < -band && r.Tested() && 1-r.P < alpha:
		r.Verdict, r.Reason = Improvement, "better than the band over the A/B block pairs and significant"
	case v < -band:
		r.Verdict, r.Reason = Unchanged, "better than the band but not significant over the A/B block pairs"
	default:
		r.Verdict, r.Reason = Unchanged, "within the band in one A/B job"
	}
}

// ConfirmAB is Compare of the two sides of an A/B job with a confirming
// A/B rerun of both: rows of Compare(base, cur) that ask for a rerun are
// judged again over the block pairs of both jobs together (the rerun's
// pairs after the first job's), so that both jobs' evidence decides;
// every other row keeps its verdict. rerunBase and rerunCur need only hold
// the runs named by RerunRuns. The row's Confirm is the rerun's own row.
func ConfirmAB(base, cur, rerunBase, rerunCur *results.File, cfg Config) *Comparison {
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
		if rb == nil || rc == nil || !rb.Valid() || !rc.Valid() || abPairs(rb, rc) == 0 {
			r.Reason += "; the A/B rerun has no valid run to confirm with"
			continue
		}
		second, ok := c.measure(rb, rc, r.Metric, r.Tolerance)
		if !ok {
			r.Reason += "; the rerun lacks the metric"
			continue
		}
		c.measurePaired(&second, rb, rc, abPairs(rb, rc))
		c.judgePaired(&second)
		bb, cb := joinBlocks(baseRuns[r.Run], rb), joinBlocks(curRuns[r.Run], rc)
		both, ok := c.measure(bb, cb, r.Metric, r.Tolerance)
		if !ok {
			continue
		}
		c.measurePaired(&both, bb, cb, abPairs(bb, cb))
		c.judgePaired(&both)
		both.Confirm, both.Rerun = &second, false
		if both.Verdict == Inconclusive {
			both.Reason = "past the band over both A/B jobs, not significant over their block pairs"
		} else {
			both.Reason += " (over both A/B jobs)"
		}
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
// run measured in one job (both files marked results.AB): its rows are
// judged over block pairs, and the environments differ on purpose.
func (c *Comparison) InOneJob() bool {
	return c.Baseline != nil && c.Current != nil && c.Baseline.AB != nil && c.Current.AB != nil
}
