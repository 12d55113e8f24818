package changepoint

import (
	"math"
	"slices"
)

// Options configures Find. Zero values take the defaults.
type Options struct {
	// Alpha is the significance level: a split's permutation test must
	// reach p ≤ Alpha, or with Worse set the tests share it (see Find);
	// 0 means DefaultAlpha.
	Alpha float64
	// Permutations is how many permutations a test draws at least; 0
	// means DefaultPermutations.
	Permutations int
	// MinSize is the fewest points on either side of a change point; 0
	// means DefaultMinSize, and it is at least 2.
	MinSize int
	// MinChange is the least relative change of level, |after/before − 1|,
	// a change point must show to be kept (0.05 for 5%); 0 keeps every
	// significant one.
	MinChange float64
	// MinDelta, when above 0, is the least absolute change |after −
	// before| instead, in the series' unit.
	MinDelta float64
	// Worse is the direction of a change for the worse. When it is Up
	// or Down, Find also runs the recent-step test, one-sided that way,
	// and splits Alpha between it and E-divisive (see Find); Unknown
	// runs E-divisive alone at Alpha.
	Worse Direction
	// Recent is the most newest points the recent-step test takes as a
	// new level; 0 means DefaultRecent.
	Recent int
}

func (o Options) withDefaults() Options {
	if o.Alpha <= 0 {
		o.Alpha = DefaultAlpha
	}
	if o.Permutations <= 0 {
		o.Permutations = DefaultPermutations
	}
	if o.MinSize <= 0 {
		o.MinSize = DefaultMinSize
	}
	o.MinSize = max(o.MinSize, 2)
	if o.Recent <= 0 {
		o.Recent = DefaultRecent
	}
	return o
}

// ChangePoint is one change of level in a series.
type ChangePoint struct {
	// Index is the first point of the new level.
	Index int
	// Start and End bound the levels either side: the level before is
	// the points [Start, Index), the level after [Index, End), each
	// running to the neighbouring change point or the series' end.
	Start, End int
	// Before and After are the medians of those points.
	Before, After float64
	// P is the permutation test's p-value when the split was found.
	P float64
	// Recent is true when the recent-step test found it, false when
	// E-divisive did.
	Recent bool
}

// Change is the relative change of level, After/Before − 1 (±Inf when
// Before is 0 and After is not).
func (c ChangePoint) Change() float64 {
	if c.Before == 0 {
		if c.After == 0 {
			return 0
		}
		return math.Copysign(math.Inf(1), c.After)
	}
	return c.After/c.Before - 1
}

// Find returns the change points of xs (in time order), ordered by index.
// Series of positive values are searched in logs, so that a level is
// judged by its ratio to another whatever the unit; others as they are.
// Each change point the search finds must pass a permutation test; then,
// while one changes the level by less than the least magnitude
// (o.MinChange, or o.MinDelta), the smallest is removed and its
// neighbours' levels are measured again over the merged points.
//
// With o.Worse set, the newest level left (the points after the last
// change point, or the whole series) is then tested for a recent step:
// the newest k points, for k from MinSize to Recent, against the points
// before them, one-sided in the worse direction, by the largest Student's
// t over k, with a permutation test of its own. A step it finds is a
// change point too, kept when it moves the median level the worse way by
// at least the least magnitude. The two tests share the significance
// level (Bonferroni): the recent-step test runs at RecentShare·Alpha, and
// E-divisive's split at α_E and its searched-end split at α_E/2, with
// 1.5·α_E = (1−RecentShare)·Alpha; so that on a series without a change
// the chance that any change point is reported is at most Alpha. Without
// o.Worse, E-divisive runs as it always did: its split at Alpha, the
// searched-end split at Alpha/2.
func Find(xs []float64, o Options) []ChangePoint {
	o = o.withDefaults()
	if len(xs) < 2*o.MinSize {
		return nil
	}
	x := xs
	if !slices.ContainsFunc(xs, func(v float64) bool { return !(v > 0) }) {
		x = make([]float64, len(xs))
		for i, v := range xs {
			x[i] = math.Log(v)
		}
	}
	ed := o
	if o.Worse != Unknown {
		ed.Alpha = o.Alpha * (1 - RecentShare) / 1.5
	}
	fs := divide(x, ed)
	slices.SortFunc(fs, func(a, b found) int { return a.index - b.index })
	cps := make([]ChangePoint, len(fs))
	for i, f := range fs {
		cps[i] = ChangePoint{Index: f.index, P: f.p}
	}
	levels(xs, cps)
	cps = o.merge(xs, cps)
	if o.Worse == Unknown {
		return cps
	}
	return o.recent(xs, x, cps)
}

// merge removes, while one changes the level by less than the least
// magnitude, the smallest change point, and measures its neighbours'
// levels again.
func (o Options) merge(xs []float64, cps []ChangePoint) []ChangePoint {
	for len(cps) > 0 {
		weakest, size := -1, math.Inf(1)
		for i, c := range cps {
			if m := o.magnitude(c); m < size {
				weakest, size = i, m
			}
		}
		if !o.small(size) {
			break
		}
		cps = slices.Delete(cps, weakest, weakest+1)
		levels(xs, cps)
	}
	return cps
}

// magnitude is how far c moves the level, in the terms of the least
// magnitude: relative, or absolute when MinDelta is set.
func (o Options) magnitude(c ChangePoint) float64 {
	if o.MinDelta > 0 {
		return math.Abs(c.After - c.Before)
	}
	return math.Abs(c.Change())
}

func (o Options) small(m float64) bool {
	if o.MinDelta > 0 {
		return m < o.MinDelta
	}
	return m < o.MinChange
}

// levels sets each change point's bounds and the medians either side.
func levels(xs []float64, cps []ChangePoint) {
	for i := range cps {
		c := &cps[i]
		c.Start, c.End = 0, len(xs)
		if i > 0 {
			c.Start = cps[i-1].Index
		}
		if i+1 < len(cps) {
			c.End = cps[i+1].Index
		}
		c.Before, c.After = Median(xs[c.Start:c.Index]), Median(xs[c.Index:c.End])
	}
}

// Median is the median of xs (the mean of the middle two of an even
// count); NaN for none.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Sorted(slices.Values(xs))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
