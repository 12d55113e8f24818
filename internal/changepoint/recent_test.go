package changepoint

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// tBrute is Student's two-sample t (pooled variance) of b against a,
// from its definition.
func tBrute(a, b []float64) float64 {
	mean := func(xs []float64) float64 {
		s := 0.0
		for _, v := range xs {
			s += v
		}
		return s / float64(len(xs))
	}
	ma, mb := mean(a), mean(b)
	ss := 0.0
	for _, v := range a {
		ss += (v - ma) * (v - ma)
	}
	for _, v := range b {
		ss += (v - mb) * (v - mb)
	}
	na, nb := float64(len(a)), float64(len(b))
	return (mb - ma) / math.Sqrt(ss/(na+nb-2)*(1/na+1/nb))
}

func TestRecentStepMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 50; trial++ {
		n := 6 + rng.IntN(30)
		y := make([]float64, n)
		for i := range y {
			y[i] = 4.6 + 0.02*rng.NormFloat64() // logs of values near 100
			if i >= n-3-trial%5 {
				y[i] += 0.01 * float64(trial%4)
			}
		}
		minSize, maxK := 2+trial%3, 3+trial%9
		want := recentSplit{stat: math.Inf(-1)}
		for k := minSize; k <= maxK && k <= n-minSize; k++ {
			if v := tBrute(y[:n-k], y[n-k:]); v > want.stat {
				want = recentSplit{k: k, stat: v, ok: true}
			}
		}
		got := recentStep(y, minSize, maxK)
		if got.ok != want.ok || got.k != want.k || (want.ok && math.Abs(got.stat-want.stat) > 1e-6*math.Max(1, math.Abs(want.stat))) {
			t.Fatalf("trial %d (n=%d, min %d, max %d): %+v, definition %+v", trial, n, minSize, maxK, got, want)
		}
	}
	if b := recentStep([]float64{1, 2, 3, 4, 5}, 3, 7); b.ok {
		t.Errorf("5 points split with 3 a side: %+v", b)
	}
}

// stepAtEnd is 25 values: 20 at 100 and 5 at 105 under 2% lognormal
// noise, drawn from a seed where E-divisive alone finds nothing.
func stepAtEnd() []float64 {
	rng := rand.New(rand.NewPCG(28, 25))
	xs := make([]float64, 25)
	for i := range xs {
		level := 100.0
		if i >= 20 {
			level = 105
		}
		xs[i] = level * math.Exp(0.02*rng.NormFloat64())
	}
	return xs
}

func TestFindRecentStep(t *testing.T) {
	xs := stepAtEnd()
	if cps := Find(xs, Options{MinChange: 0.025}); len(cps) != 0 {
		t.Fatalf("E-divisive alone found %+v; the test wants a step it misses", cps)
	}
	cps := Find(xs, Options{MinChange: 0.025, Worse: Up})
	if len(cps) != 1 {
		t.Fatalf("with a worse direction: %+v, want the step at 20", cps)
	}
	c := cps[0]
	if c.Index != 20 || c.Start != 0 || c.End != 25 || !c.Recent {
		t.Errorf("change point %+v, want index 20 over [0, 25) by the recent-step test", c)
	}
	if ch := c.Change(); ch < 0.025 || ch > 0.08 {
		t.Errorf("change %+.3f, want about +0.05", ch)
	}
	if c.P > DefaultAlpha*RecentShare {
		t.Errorf("p %.4f above the recent-step test's share of alpha", c.P)
	}
	if again := Find(xs, Options{MinChange: 0.025, Worse: Up}); !slices.Equal(again, cps) {
		t.Errorf("the same series gave %+v, then %+v", cps, again)
	}
	// A rise is an improvement when lower is worse: the one-sided test
	// does not report it.
	if cps := Find(xs, Options{MinChange: 0.025, Worse: Down}); len(cps) != 0 {
		t.Errorf("a rise reported when falling is worse: %+v", cps)
	}
	// The least magnitude holds for it too.
	if cps := Find(xs, Options{MinChange: 0.08, Worse: Up}); len(cps) != 0 {
		t.Errorf("a 5%% step kept under an 8%% least magnitude: %+v", cps)
	}
	// The mirror image, a fall of throughput, when lower is worse.
	inv := make([]float64, len(xs))
	for i, v := range xs {
		inv[i] = 10000 / v
	}
	if cps := Find(inv, Options{MinChange: 0.025, Worse: Down}); len(cps) != 1 || cps[0].Index != 20 || cps[0].Change() > -0.025 {
		t.Errorf("a 5%% fall when lower is worse: %+v", cps)
	}
	// Too few entries after the step: the test needs MinSize.
	if cps := Find(xs[:22], Options{MinChange: 0.025, Worse: Up}); len(cps) != 0 {
		t.Errorf("two entries after the step: %+v", cps)
	}
}

// TestRecentTestCalibrated checks that the recent-step test alone, on
// series without a change, rejects about alpha of them: the permutation
// test is exact, clipping included.
func TestRecentTestCalibrated(t *testing.T) {
	const alpha, series = 0.05, 400
	rng := rand.New(rand.NewPCG(9, 10))
	o := Options{}.withDefaults()
	rejected := 0
	for s := 0; s < series; s++ {
		z := make([]float64, 25)
		for i := range z {
			z[i] = 0.02 * rng.NormFloat64()
			if rng.Float64() < 0.05 {
				z[i] += 0.2 // a slow run
			}
		}
		if _, _, ok := recentTest(z, Up, alpha, o, rand.New(rand.NewPCG(uint64(s), 11))); ok {
			rejected++
		}
	}
	// 400 series at 0.05: 20 expected, binomial sd 4.4.
	if rejected < 7 || rejected > 34 {
		t.Errorf("rejected %d of %d series without a change at alpha %.2f", rejected, series, alpha)
	}
}

func TestRecentStepSlowRuns(t *testing.T) {
	// One slow run among the newest is no level of its own.
	xs := slices.Repeat([]float64{100, 101, 99, 100.5, 99.5}, 5)
	xs[24] = 130
	if cps := Find(xs, Options{MinChange: 0.025, Worse: Up}); len(cps) != 0 {
		t.Errorf("one slow newest run: %+v", cps)
	}
	// Two slow runs before a +10% step do not hide it: the test clips them.
	xs = slices.Repeat([]float64{100, 101, 99, 100.5, 99.5}, 5)
	xs[4], xs[11] = 128, 125
	for i := 20; i < 25; i++ {
		xs[i] *= 1.10
	}
	cps := Find(xs, Options{MinChange: 0.025, Worse: Up})
	if len(cps) == 0 || cps[len(cps)-1].Index != 20 || cps[len(cps)-1].Change() < 0.08 {
		t.Errorf("a +10%% step after two slow runs: %+v", cps)
	}
}

func TestWinsorise(t *testing.T) {
	y := []float64{1, 2, 3, 4, 5, 6, 7, 100}
	winsorise(y, 3)
	// median 4.5, MAD 2, robust sd 2.9652: clipped at 4.5 ± 8.8956.
	if got := y[7]; math.Abs(got-(4.5+3*1.4826*2)) > 1e-9 {
		t.Errorf("100 clipped to %g", got)
	}
	if !slices.Equal(y[:7], []float64{1, 2, 3, 4, 5, 6, 7}) {
		t.Errorf("values within the bounds changed: %v", y)
	}
	flat := []float64{3, 3, 3, 3, 9}
	winsorise(flat, 3)
	if flat[4] != 9 {
		t.Errorf("a series without spread was clipped: %v", flat)
	}
}

// TestFindRecentStepAfterOlder has an old +10% step that E-divisive finds
// and a +5% step on top 5 entries from the end that it does not: the
// recent-step test looks at the newest level E-divisive left, after 15.
func TestFindRecentStepAfterOlder(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	xs := noisy(rng, 40, 100, 0.02)
	for i := 15; i < 40; i++ {
		xs[i] *= 1.1
	}
	for i := 35; i < 40; i++ {
		xs[i] *= 1.05
	}
	if cps := Find(xs, Options{MinChange: 0.025}); len(cps) != 1 || cps[0].Index != 15 {
		t.Fatalf("E-divisive alone: %+v, want the old step at 15 only", cps)
	}
	cps := Find(xs, Options{MinChange: 0.025, Worse: Up})
	if len(cps) != 2 || cps[0].Index != 15 || cps[0].Recent || cps[1].Index != 35 || !cps[1].Recent {
		t.Fatalf("found %+v, want E-divisive's 15 and the recent step at 35", cps)
	}
	if cps[0].End != 35 || cps[1].Start != 15 || cps[1].Change() < 0.025 {
		t.Errorf("levels: %+v", cps)
	}
}
