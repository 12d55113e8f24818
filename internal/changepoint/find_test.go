package changepoint

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// qBrute is Matteson and James's Q̂(x, y; α=1) computed from its
// definition, for checking split's running sums.
func qBrute(x, y []float64) float64 {
	var between, wx, wy float64
	for _, a := range x {
		for _, b := range y {
			between += math.Abs(a - b)
		}
	}
	for i := range x {
		for j := i + 1; j < len(x); j++ {
			wx += math.Abs(x[i] - x[j])
		}
	}
	for i := range y {
		for j := i + 1; j < len(y); j++ {
			wy += math.Abs(y[i] - y[j])
		}
	}
	nx, ny := float64(len(x)), float64(len(y))
	e := 2*between/(nx*ny) - wx/(nx*(nx-1)/2) - wy/(ny*(ny-1)/2)
	return nx * ny / (nx + ny) * e
}

func TestSplitMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 50; trial++ {
		n := 6 + rng.IntN(20)
		z := make([]float64, n)
		for i := range z {
			z[i] = rng.NormFloat64()
			if i > n/2 {
				z[i] += float64(trial%3) * 0.7
			}
		}
		minSize := 2 + trial%3
		want := bestSplit{q: math.Inf(-1)}
		for tau := minSize; tau <= n-minSize; tau++ {
			if q := qBrute(z[:tau], z[tau:]); q > want.q {
				want = bestSplit{tau: tau, q: q, ok: true}
			}
		}
		got := split(z, minSize)
		if got.tau != want.tau || math.Abs(got.q-want.q) > 1e-9*math.Max(1, math.Abs(want.q)) {
			t.Fatalf("trial %d (n=%d, min %d): split %+v, definition %+v", trial, n, minSize, got, want)
		}
	}
	if b := split([]float64{1, 2, 3, 4, 5}, 3); b.ok {
		t.Errorf("a segment of 5 split with 3 a side: %+v", b)
	}
}

// noisy returns n values around level with lognormal noise of sigma.
func noisy(rng *rand.Rand, n int, level, sigma float64) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = level * math.Exp(sigma*rng.NormFloat64())
	}
	return xs
}

func TestFindStep(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	xs := append(noisy(rng, 12, 100, 0.02), noisy(rng, 12, 110, 0.02)...)
	cps := Find(xs, Options{MinChange: 0.05})
	if len(cps) != 1 {
		t.Fatalf("found %+v, want one change point at 12", cps)
	}
	c := cps[0]
	if c.Index != 12 || c.Start != 0 || c.End != 24 {
		t.Errorf("change point %+v, want index 12 over [0, 24)", c)
	}
	if ch := c.Change(); ch < 0.07 || ch > 0.13 {
		t.Errorf("change %+.3f, want about +0.10", ch)
	}
	if c.P > DefaultAlpha {
		t.Errorf("p %.4f above alpha", c.P)
	}
	if again := Find(xs, Options{MinChange: 0.05}); !slices.Equal(again, cps) {
		t.Errorf("the same series gave %+v, then %+v", cps, again)
	}
	// The same step under a least magnitude above it is merged away.
	if cps := Find(xs, Options{MinChange: 0.2}); len(cps) != 0 {
		t.Errorf("a 10%% step kept under a 20%% least magnitude: %+v", cps)
	}
	// An absolute least magnitude in the series' unit: 10 ms here.
	if cps := Find(xs, Options{MinDelta: 5}); len(cps) != 1 {
		t.Errorf("a 10 ms step under a 5 ms least magnitude: %+v", cps)
	}
	if cps := Find(xs, Options{MinDelta: 20}); len(cps) != 0 {
		t.Errorf("a 10 ms step under a 20 ms least magnitude: %+v", cps)
	}
}

func TestFindTwoSteps(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	xs := slices.Concat(noisy(rng, 10, 100, 0.01), noisy(rng, 10, 120, 0.01), noisy(rng, 10, 100, 0.01))
	cps := Find(xs, Options{MinChange: 0.05})
	if len(cps) != 2 || cps[0].Index != 10 || cps[1].Index != 20 {
		t.Fatalf("found %+v, want change points at 10 and 20", cps)
	}
	if cps[0].End != 20 || cps[1].Start != 10 {
		t.Errorf("levels do not meet: %+v", cps)
	}
	if cps[0].Change() < 0.15 || cps[1].Change() > -0.13 {
		t.Errorf("changes %+.3f and %+.3f, want about +20%% and -17%%", cps[0].Change(), cps[1].Change())
	}
}

func TestFindNothing(t *testing.T) {
	for name, xs := range map[string][]float64{
		"constant": slices.Repeat([]float64{5}, 30),
		"short":    {1, 1, 1, 9, 9},
		"empty":    nil,
		"zeros":    make([]float64, 20),
	} {
		if cps := Find(xs, Options{}); len(cps) != 0 {
			t.Errorf("%s: found %+v", name, cps)
		}
	}
	// A series with zeros is searched as it is (no logs) and still finds a step.
	xs := slices.Concat(make([]float64, 10), slices.Repeat([]float64{3}, 10))
	if cps := Find(xs, Options{}); len(cps) != 1 || cps[0].Index != 10 || !math.IsInf(cps[0].Change(), 1) {
		t.Errorf("0 → 3: %+v", cps)
	}
}
