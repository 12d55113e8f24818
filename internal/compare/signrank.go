package compare

import (
	"math"
	"slices"
)

// signedRankP is the one-sided p-value of the Wilcoxon signed-rank test
// that the values of xs are centred above 0 (worse): exact over every
// assignment of signs for up to 24 values (midranks for ties, zeros
// dropped), the normal approximation beyond; NaN with fewer than two
// non-zero values. It asks only that the per-pair changes be symmetric
// about their centre, not normal: one pair's outlier weighs as one rank.
func signedRankP(xs []float64) float64 {
	var d []float64
	for _, x := range xs {
		if x != 0 && !math.IsNaN(x) {
			d = append(d, x)
		}
	}
	n := len(d)
	if n < 2 {
		return math.NaN()
	}
	slices.SortFunc(d, func(a, b float64) int {
		switch {
		case math.Abs(a) < math.Abs(b):
			return -1
		case math.Abs(a) > math.Abs(b):
			return 1
		}
		return 0
	})
	// Doubled midranks are integers: 2·rank for distinct values.
	ranks := make([]int, n)
	for i := 0; i < n; {
		j := i
		for j+1 < n && math.Abs(d[j+1]) == math.Abs(d[i]) {
			j++
		}
		for k := i; k <= j; k++ {
			ranks[k] = i + j + 2 // (i+1 + j+1) = 2 × the midrank
		}
		i = j + 1
	}
	w := 0
	for i, x := range d {
		if x > 0 {
			w += ranks[i]
		}
	}
	if n > 24 {
		// The doubled statistic has mean n(n+1)/2 and variance Σranks²/4;
		// its steps are 2, so the continuity correction is 1.
		mean := float64(n*(n+1)) / 2
		var v float64
		for _, r := range ranks {
			v += float64(r * r)
		}
		z := (float64(w) - mean - 1) / math.Sqrt(v/4)
		return 0.5 * math.Erfc(z/math.Sqrt2)
	}
	total := 0
	for _, r := range ranks {
		total += r
	}
	// counts[s] is how many sign assignments give a doubled W+ of s.
	counts := make([]float64, total+1)
	counts[0] = 1
	for _, r := range ranks {
		for s := total; s >= r; s-- {
			counts[s] += counts[s-r]
		}
	}
	var tail float64
	for s := w; s <= total; s++ {
		tail += counts[s]
	}
	return tail / math.Exp2(float64(n))
}
