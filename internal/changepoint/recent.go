package changepoint

import (
	"math"
	"math/rand/v2"
	"slices"
)

// Direction is the way a change of level is for the worse.
type Direction int

const (
	// Unknown says no direction is worse: Find runs E-divisive alone, at
	// the whole of Alpha, and no recent-step test.
	Unknown Direction = iota
	// Up is worse when the values rise (a latency).
	Up
	// Down is worse when the values fall (a throughput).
	Down
)

// DefaultRecent is the most newest points the recent-step test takes as
// a new level: it looks for a step among the last MinSize to
// DefaultRecent points. Chosen with TestAccuracy (5,000 series): a +5%
// step under 2% noise is found 5 entries after it 91.5% of the time with
// 5, 92.2% with 6, 91.5% with 7; but with 5 or 6 a step 7 or 8 entries
// old is left to E-divisive at its smaller share of the level (8 entries
// after: 86.9%, 88.2%, and 91.9% with 7), and every further k dilutes the
// test's power at the few entries after a step where it is needed.
const DefaultRecent = 7

// RecentShare is the share of Options.Alpha the recent-step test gets
// when Options.Worse is set; E-divisive's two splits get the rest. More
// than half, since a step among the newest entries is what E-divisive
// finds least well: at 0.5 a +5% step under 2% noise is found 5 entries
// after it 90% of the time, at 0.6 91%, with A/A false regressions under
// 1 per 100 either way (TestAccuracy).
const RecentShare = 0.6

// recentPermutationsPerAlpha sets how many permutations the recent-step
// test draws at least: enough that its level allows ten permutations as
// extreme as the series (1666 at 0.006), so that a finite draw costs
// little power; each permutation is one pass over the segment.
const recentPermutationsPerAlpha = 10

// recentSplit is the recent-step statistic of one segment: the number k
// of newest points whose mean stands furthest above the points before
// them in the worse direction, and how far, in standard errors.
type recentSplit struct {
	k    int
	stat float64 // Student's t of the newest k against the rest
	ok   bool    // false when the segment is too short
}

// recentStep scans y (a segment, oriented so that worse is up) for a
// step among its newest points: for each k from minSize to at most
// maxK, leaving minSize points before, Student's two-sample t of y's last
// k points against the points before them (pooled variance), and the
// largest. Suffix sums make it one pass over the segment.
func recentStep(y []float64, minSize, maxK int) recentSplit {
	n := len(y)
	hi := min(maxK, n-minSize)
	if hi < minSize {
		return recentSplit{}
	}
	// Centre on the segment's mean so the sums of squares lose nothing.
	var total float64
	for _, v := range y {
		total += v
	}
	mean := total / float64(n)
	var sum, sq float64
	for _, v := range y {
		d := v - mean
		sum += d
		sq += d * d
	}
	best := recentSplit{stat: math.Inf(-1)}
	var sumA, sqA float64 // over the newest k
	for k := 1; k <= hi; k++ {
		d := y[n-k] - mean
		sumA += d
		sqA += d * d
		if k < minSize {
			continue
		}
		na, nb := float64(k), float64(n-k)
		sumB, sqB := sum-sumA, sq-sqA
		ma, mb := sumA/na, sumB/nb
		ss := (sqA - sumA*ma) + (sqB - sumB*mb)
		diff := ma - mb
		var t float64
		switch {
		case ss > 0:
			t = diff / math.Sqrt(ss/(na+nb-2)*(1/na+1/nb))
		case diff > 0:
			t = math.Inf(1)
		case diff < 0:
			t = math.Inf(-1)
		default:
			continue
		}
		if t > best.stat {
			best = recentSplit{k: k, stat: t, ok: true}
		}
	}
	if math.IsInf(best.stat, -1) {
		best.ok = false
	}
	return best
}

// recentTest is the recent-step test of the segment z: the newest k
// points that recentStep finds, and the share of permutations of z whose
// statistic is as large, counted as (hits+1)/(R+1), with R large enough
// for alpha; ok when that p is at most alpha. It stops drawing once the
// test cannot pass. When the k found is o.Recent, the largest scanned, k
// is the least-squares split among the k beyond it (largest t).
func recentTest(z []float64, worse Direction, alpha float64, o Options, rng *rand.Rand) (k int, p float64, ok bool) {
	y := make([]float64, len(z))
	sign := 1.0
	if worse == Down {
		sign = -1
	}
	for i, v := range z {
		y[i] = sign * v
	}
	winsorise(y, winsorC)
	observed := recentStep(y, o.MinSize, o.Recent)
	if !observed.ok || observed.stat <= 0 {
		return 0, 1, false
	}
	permutations := max(o.Permutations, int(math.Ceil(recentPermutationsPerAlpha/alpha))-1)
	allowed := int(math.Floor(alpha*float64(permutations+1)+1e-9)) - 1
	if allowed < 0 {
		return 0, 1, false
	}
	hits := 0
	for r := 0; r < permutations; r++ {
		rng.Shuffle(len(y), func(i, j int) { y[i], y[j] = y[j], y[i] })
		if b := recentStep(y, o.MinSize, o.Recent); b.ok && b.stat >= observed.stat {
			if hits++; hits > allowed {
				return 0, float64(hits+1) / float64(permutations+1), false
			}
		}
	}
	k = observed.k
	if k == o.Recent {
		// Every one of the newest Recent points looks like the new level:
		// it may have started further back (a step E-divisive missed ten
		// entries ago). Place it at the least-squares split beyond.
		copy(y, z)
		for i := range y {
			y[i] *= sign
		}
		winsorise(y, winsorC)
		if at := recentStep(y, o.Recent, len(y)); at.ok {
			k = at.k
		}
	}
	return k, float64(hits+1) / float64(permutations+1), true
}

// recent runs the recent-step test over the newest level that E-divisive
// left in xs (x is xs as searched, in logs or not), after its change
// points cps, and adds the step it finds as a change point when its
// medians move the worse way; then merges change points below the least
// magnitude again.
func (o Options) recent(xs, x []float64, cps []ChangePoint) []ChangePoint {
	n, start := len(xs), 0
	if len(cps) > 0 {
		start = cps[len(cps)-1].Index
	}
	rng := rand.New(rand.NewPCG(seedOf(x), 0x2ece27))
	k, p, ok := recentTest(x[start:], o.Worse, o.Alpha*RecentShare, o, rng)
	if !ok {
		return cps
	}
	out := append(slices.Clone(cps), ChangePoint{Index: n - k, P: p, Recent: true})
	levels(xs, out)
	if !o.worse(out[len(out)-1]) {
		return cps // the medians do not agree with the means
	}
	return o.merge(xs, out)
}

// worse reports whether c moves the level in the worse direction.
func (o Options) worse(c ChangePoint) bool {
	switch o.Worse {
	case Up:
		return c.After > c.Before
	case Down:
		return c.After < c.Before
	}
	return false
}

// winsorC is how many robust standard deviations (1.4826 × the median
// absolute deviation) from the median the recent-step test clips a
// segment's values to before its t: one run slowed by a shared machine
// would otherwise swell the variance of the points before a step and hide
// it (heavy-tailed noise, +10% step: found 70% of the time unclipped, 93%
// clipped at 3), while normal noise is rarely clipped at 3 (no change
// measured 5 entries after a +5% step under 2% noise). Clipping depends
// on the segment's values only, not their order, so the permutation test
// stays exact.
const winsorC = 3

// winsorise clips y's values to its median ± c robust standard
// deviations; a y with no spread is left as it is.
func winsorise(y []float64, c float64) {
	med := Median(y)
	dev := make([]float64, len(y))
	for i, v := range y {
		dev[i] = math.Abs(v - med)
	}
	s := 1.4826 * Median(dev)
	if s == 0 {
		return
	}
	for i, v := range y {
		y[i] = min(max(v, med-c*s), med+c*s)
	}
}
