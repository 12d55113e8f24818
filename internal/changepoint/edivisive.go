package changepoint

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"math/rand/v2"
)

// Defaults of Options, chosen with TestAccuracy (docs/history.md): at
// these, with a worse direction, A/A series of 25 entries show under one
// false regression per hundred, and a +5% step under 2% noise is found
// within five entries nine times in ten.
const (
	// DefaultAlpha is the significance level, shared by E-divisive's
	// permutation tests and the recent-step test (see Find). MongoDB's
	// signal-processing library defaults to 0.05 and Otava's t-test to
	// 0.001; 0.01 bounds the series without a change that report any
	// change point to one in a hundred.
	DefaultAlpha = 0.01
	// DefaultPermutations is how many permutations each test draws at
	// least, as the ecp package's R = 199; a test draws more when its
	// level needs them (1/level − 1 for E-divisive's, so that p can reach
	// it, 10/level − 1 for the recent-step test's), and stops early once
	// it cannot pass.
	DefaultPermutations = 199
	// DefaultMinSize is the fewest points each side of a change point must
	// have: three, so that a step is found three entries after it happened
	// and one slow run is never a level of its own.
	DefaultMinSize = 3
)

// bestSplit is the most divergent split of one segment of the series:
// the first point of its second part, the divergence there, and the
// statistic the permutation test judges.
type bestSplit struct {
	// tau is where the second part starts and kappa where it ends: the
	// segment's end for split, searched too by splitInterval.
	tau, kappa int
	q          float64 // Matteson and James's Q̂ at (tau, kappa)
	stat       float64 // Q̂ over the mean distance within the parts
	ok         bool    // false when the segment is too short to split
}

// split finds the split of z (one segment) that maximises the E-divisive
// statistic with α = 1,
//
//	Q̂(τ) = τ(n−τ)/n · Ê,  Ê = 2/(τ(n−τ)) Σ|xᵢ−yⱼ| − C(τ,2)⁻¹ Σ|xᵢ−xₖ| − C(n−τ,2)⁻¹ Σ|yⱼ−yₗ|,
//
// over every τ that leaves at least minSize points in each part (x =
// z[:τ], y = z[τ:]). The second part runs to the segment's end, as in
// MongoDB's implementation, rather than to a κ searched as well (Matteson
// and James): CI's newest change sits at the end of the series, and the κ
// search cost 15 points of detection of a +5% step five entries before
// the end (TestAccuracy). The sums move one point from y to x at a time,
// so the search costs O(len(z)²).
//
// The permutation test judges Q̂ studentized, divided by the mean distance
// between points of the same part: a permutation mixes the levels, which
// inflates that spread, so a real step stands further above its
// permutations than Q̂ alone shows (measured: a +10% step under 5% noise
// found 47% of the time instead of 32%, heavy-tailed 83% instead of 74%,
// false change points unchanged).
func split(z []float64, minSize int) bestSplit {
	n := len(z)
	if n < 2*minSize {
		return bestSplit{}
	}
	var withinX, withinY, between float64
	for i := range z {
		for j := i + 1; j < n; j++ {
			withinY += math.Abs(z[i] - z[j])
		}
	}
	best := bestSplit{q: math.Inf(-1)}
	for tau := 1; tau <= n-minSize; tau++ {
		p := tau - 1 // the point moving from y to x
		var left, right float64
		for i := 0; i < p; i++ {
			left += math.Abs(z[i] - z[p])
		}
		for j := p + 1; j < n; j++ {
			right += math.Abs(z[j] - z[p])
		}
		withinX += left
		withinY -= right
		between += right - left
		if tau < minSize {
			continue
		}
		nx, ny := float64(tau), float64(n-tau)
		px, py := nx*(nx-1)/2, ny*(ny-1)/2
		e := 2*between/(nx*ny) - withinX/px - withinY/py
		if q := nx * ny / (nx + ny) * e; q > best.q {
			w := (withinX + withinY) / (px + py)
			best = bestSplit{tau: tau, kappa: n, q: q, stat: q / math.Max(w, math.SmallestNonzeroFloat64), ok: true}
		}
	}
	return best
}

// splitInterval is split with the end of the second part searched too, as
// Matteson and James do: the most divergent (τ, κ) by Q̂, with x = z[:τ]
// and y = z[τ:κ]. divide asks it only when split finds nothing: it finds a
// level that came and went (a regression later fixed) in the middle of a
// long flat series, where split's second part would mix the bump with the
// level after it. Column prefix sums of the distance matrix keep it at
// O(len(z)²).
func splitInterval(z []float64, minSize int) bestSplit {
	n := len(z)
	if n < 2*minSize {
		return bestSplit{}
	}
	// pre[j*(n+1)+i] = Σ_{i' < i} |z[i'] − z[j]|
	pre := make([]float64, n*(n+1))
	for j := 0; j < n; j++ {
		row := pre[j*(n+1) : (j+1)*(n+1)]
		for i := 0; i < n; i++ {
			row[i+1] = row[i] + math.Abs(z[i]-z[j])
		}
	}
	col := func(j, i int) float64 { return pre[j*(n+1)+i] }
	best := bestSplit{q: math.Inf(-1)}
	withinX := 0.0
	for tau := 1; tau <= n-minSize; tau++ {
		withinX += col(tau-1, tau-1)
		if tau < minSize {
			continue
		}
		between, withinY := 0.0, 0.0
		nx := float64(tau)
		for kappa := tau + 1; kappa <= n; kappa++ {
			j := kappa - 1 // the point entering y
			between += col(j, tau)
			withinY += col(j, j) - col(j, tau)
			if kappa-tau < minSize {
				continue
			}
			ny := float64(kappa - tau)
			px, py := nx*(nx-1)/2, ny*(ny-1)/2
			e := 2*between/(nx*ny) - withinX/px - withinY/py
			if q := nx * ny / (nx + ny) * e; q > best.q {
				w := (withinX + withinY) / (px + py)
				best = bestSplit{tau: tau, kappa: kappa, q: q, stat: q / math.Max(w, math.SmallestNonzeroFloat64), ok: true}
			}
		}
	}
	return best
}

// splitter is split or splitInterval.
type splitter func(z []float64, minSize int) bestSplit

// segment is a half-open range of the series, [start, end).
type segment struct{ start, end int }

// found is one change point of the divisive search with its p-value.
type found struct {
	index int
	p     float64
}

// divide runs the E-divisive search over x: split the segment whose best
// split diverges most, keep the split when a permutation test calls it
// significant, and repeat until none is; then try once the splits whose
// second part ends inside the segment (splitInterval), and go on while
// those are significant. It returns the change points in the order found.
func divide(x []float64, o Options) []found {
	segs := []segment{{0, len(x)}}
	memo := map[segment]bestSplit{}
	memoInterval := map[segment]bestSplit{}
	rng := rand.New(rand.NewPCG(seedOf(x), 0x0e0d1715))
	var out []found
	try := func(find splitter, memo map[segment]bestSplit, alpha float64) bool {
		bi, best := -1, bestSplit{}
		for i, g := range segs {
			b, ok := memo[g]
			if !ok {
				b = find(x[g.start:g.end], o.MinSize)
				memo[g] = b
			}
			if b.ok && (bi < 0 || b.stat > best.stat) {
				bi, best = i, b
			}
		}
		if bi < 0 {
			return false
		}
		p, ok := permutationTest(x, segs, best.stat, find, alpha, o, rng)
		if !ok {
			return false
		}
		g := segs[bi]
		parts := []segment{{g.start, g.start + best.tau}}
		out = append(out, found{index: g.start + best.tau, p: p})
		if end := g.start + best.kappa; end < g.end {
			parts = append(parts, segment{g.start + best.tau, end}, segment{end, g.end})
			out = append(out, found{index: end, p: p})
		} else {
			parts = append(parts, segment{g.start + best.tau, g.end})
		}
		segs = append(segs[:bi], append(parts, segs[bi+1:]...)...)
		return true
	}
	for try(split, memo, o.Alpha) || try(splitInterval, memoInterval, o.Alpha/2) {
	}
	return out
}

// permutationTest is the significance of observed, the largest statistic
// of find over segs: the share of R random permutations, each shuffling
// the points within every segment, whose largest statistic is as large,
// counted as (hits+1)/(R+1). It stops drawing once the test cannot pass
// and then returns false.
func permutationTest(x []float64, segs []segment, observed float64, find splitter, alpha float64, o Options, rng *rand.Rand) (float64, bool) {
	// Enough permutations that p can reach alpha at all (374 at 0.0027).
	permutations := max(o.Permutations, int(math.Ceil(1/alpha-1e-9))-1)
	perm := make([]float64, len(x))
	// p = (hits+1)/(R+1) ≤ alpha needs hits ≤ alpha(R+1) − 1.
	allowed := int(math.Floor(alpha*float64(permutations+1)+1e-9)) - 1
	if allowed < 0 {
		return 1, false // R too small to reach alpha at all
	}
	hits := 0
	for r := 0; r < permutations; r++ {
		copy(perm, x)
		top := math.Inf(-1)
		for _, g := range segs {
			part := perm[g.start:g.end]
			rng.Shuffle(len(part), func(i, j int) { part[i], part[j] = part[j], part[i] })
			if b := find(part, o.MinSize); b.ok && b.stat > top {
				top = b.stat
			}
		}
		if top >= observed {
			if hits++; hits > allowed {
				return float64(hits+1) / float64(permutations+1), false
			}
		}
	}
	return float64(hits+1) / float64(permutations+1), true
}

// seedOf derives the permutations' seed from the series itself, so the
// same series always gets the same answer (the nondeterminism Otava's
// authors held against the permutation test), and different series draw
// different permutations.
func seedOf(x []float64) uint64 {
	h := fnv.New64a()
	var b [8]byte
	for _, v := range x {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
		h.Write(b[:])
	}
	return h.Sum64()
}
