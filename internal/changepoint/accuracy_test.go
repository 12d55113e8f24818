package changepoint

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

var accuracyTrials = flag.Int("changepoint.trials", 300, "series per cell of TestAccuracy (docs/history.md's table uses 5000)")

// seriesNoise is the run-to-run noise of a synthetic history: each entry is
// the true level times exp(N(0, sigma)), and with probability slowP an
// entry is slowed ×1.10–1.30 on top (a run that shared its machine).
type seriesNoise struct {
	name  string
	sigma float64
	slowP float64
}

// seriesChange is what the history does over time.
type seriesChange struct {
	name string
	// step multiplies the level from entry at on (1.05 is +5%).
	step float64
	// drift multiplies the level by drift^(i/(n−1)) at entry i: a slow
	// slide to drift×level by the last entry.
	drift float64
	// after is how many entries follow entry 20; 0 means 5.
	after int
}

// stepAt and after shape the synthetic histories: 20 entries at the old
// level, then (by default) 5 at the new one: "found within 5 entries".
const (
	stepAt       = 20
	defaultAfter = 5
	// near is how far from the true step a change point may be found and
	// still count as finding it.
	near = 2
)

func (nz seriesNoise) draw(rng *rand.Rand, ch seriesChange) []float64 {
	after := ch.after
	if after == 0 {
		after = defaultAfter
	}
	accuracyLen := stepAt + after
	xs := make([]float64, accuracyLen)
	for i := range xs {
		level := 100.0
		if ch.step > 0 && i >= stepAt {
			level *= ch.step
		}
		if ch.drift > 0 {
			level *= math.Pow(ch.drift, float64(i)/float64(accuracyLen-1))
		}
		v := level * math.Exp(nz.sigma*rng.NormFloat64())
		if rng.Float64() < nz.slowP {
			v *= 1.1 + 0.2*rng.Float64()
		}
		xs[i] = v
	}
	return xs
}

// accuracyCell counts, over trials series, how often a regression (a
// level going up) was found near the step, and the change points found
// anywhere else.
type accuracyCell struct {
	trials, detected, falseRegressions, falseAny int
}

func (c accuracyCell) rate(n int) float64 { return float64(n) / float64(c.trials) }

func measure(nz seriesNoise, ch seriesChange, minChange float64, trials int, seed uint64) accuracyCell {
	return measureWith(nz, ch, Options{MinChange: minChange, Worse: Up}, trials, seed)
}

func measureWith(nz seriesNoise, ch seriesChange, o Options, trials int, seed uint64) accuracyCell {
	rng := rand.New(rand.NewPCG(seed, 0xacc))
	c := accuracyCell{trials: trials}
	for t := 0; t < trials; t++ {
		hit := false
		for _, cp := range Find(nz.draw(rng, ch), o) {
			regression := cp.Change() > 0
			onStep := ch.step > 1 && math.Abs(float64(cp.Index-stepAt)) <= near
			if ch.drift > 1 {
				onStep = true // a drift has no one place: any regression finds it
			}
			switch {
			case regression && onStep:
				hit = true
			case regression:
				c.falseRegressions++
				c.falseAny++
			default:
				c.falseAny++
			}
		}
		if hit {
			c.detected++
		}
	}
	return c
}

// TestAccuracy measures change-point detection on synthetic histories of 25
// entries: pure noise (A/A), steps of +3%, +5% and +10% after entry 20, and
// slow drifts; under lognormal noise of 2% and 5% per entry and a
// heavy-tailed model (2%, and one entry in twenty slowed ×1.1–1.3). Find
// runs as history check runs it: E-divisive and the recent-step test, a
// rise being the worse direction. It reports, at least magnitudes of 2.5%
// and 5% (half of a 5% and of a 10% band), how often a regression is found
// within two entries of the step, and false change points per 100 series.
// It holds the defaults to the targets: at most 1 false regression
// per 100 A/A series under every noise model and least magnitude, and at
// least 90% of +5% steps under 2% noise found within the 5 entries after
// them (at a least magnitude of 2.5%), and as well 6 to 10 entries after
// them; with few trials the bounds widen by three binomial standard
// errors.
//
//	go test ./internal/changepoint -run TestAccuracy -v -changepoint.trials 5000
func TestAccuracy(t *testing.T) {
	trials := *accuracyTrials
	switch {
	case testing.Short() && trials > 300:
		t.Skip("many trials: not under -short")
	case raceEnabled && trials > 300:
		t.Skip("many trials: not under -race")
	case raceEnabled:
		trials = 40 // the race detector watches the search, not the statistics
	case testing.Short():
		trials = 100 // the bounds widen to match; the docs' table is 5000
	}
	noises := []seriesNoise{
		{name: "lognormal 2%", sigma: 0.02},
		{name: "lognormal 5%", sigma: 0.05},
		{name: "heavy-tailed 2%", sigma: 0.02, slowP: 0.05},
	}
	changes := []seriesChange{
		{name: "A/A"},
		{name: "step +3%", step: 1.03},
		{name: "step +5%", step: 1.05},
		{name: "step +10%", step: 1.10},
		{name: "drift +5%", drift: 1.05},
		{name: "drift +10%", drift: 1.10},
	}
	mins := []float64{0.025, 0.05}
	var table strings.Builder
	fmt.Fprintf(&table, "| noise | history | found (least 2.5%%) | false regressions / 100 | false change points / 100 | found (least 5%%) | false regressions / 100 | false change points / 100 |\n")
	fmt.Fprintf(&table, "|---|---|---:|---:|---:|---:|---:|---:|\n")
	se := func(p float64) float64 { return 3 * math.Sqrt(p*(1-p)/float64(trials)) }
	for ni, nz := range noises {
		for ci, ch := range changes {
			fmt.Fprintf(&table, "| %s | %s |", nz.name, ch.name)
			for mi, mc := range mins {
				c := measure(nz, ch, mc, trials, uint64(1+ni*100+ci*10+mi))
				found := "—"
				if ch.name != "A/A" {
					found = fmt.Sprintf("%.1f%%", 100*c.rate(c.detected))
				}
				fmt.Fprintf(&table, " %s | %.1f | %.1f |", found, 100*c.rate(c.falseRegressions), 100*c.rate(c.falseAny))
				if ch.name == "A/A" {
					if got, limit := c.rate(c.falseRegressions), maxFalseRegressions+se(maxFalseRegressions); got > limit {
						t.Errorf("%s A/A at least %.1f%%: %.3f false regressions per series, want ≤ %.3f (bound %.3f at %d trials)", nz.name, 100*mc, got, maxFalseRegressions, limit, trials)
					}
				}
				if nz.name == "lognormal 2%" && ch.name == "step +5%" && mc == 0.025 {
					if got, floor := c.rate(c.detected), minFound5-se(minFound5); got < floor {
						t.Errorf("+5%% step under 2%% noise found %.1f%% of the time, want ≥ %.0f%% (bound %.1f%% at %d trials)", 100*got, 100*minFound5, 100*floor, trials)
					}
				}
			}
			table.WriteString("\n")
		}
	}
	t.Logf("%d series per cell, 25 entries, step after entry 20, found = a regression within %d entries of the step (any regression for a drift)\n%s", trials, near, table.String())

	// How many entries after a +5% step under 2% noise it takes to find it.
	var later strings.Builder
	later.WriteString("| entries after the step | 3 | 4 | 5 | 6 | 7 | 8 | 10 |\n|---|---:|---:|---:|---:|---:|---:|---:|\n| found (least 2.5%) |")
	for i, after := range []int{3, 4, 5, 6, 7, 8, 10} {
		c := measure(noises[0], seriesChange{step: 1.05, after: after}, 0.025, trials, uint64(9000+i))
		fmt.Fprintf(&later, " %.1f%% |", 100*c.rate(c.detected))
		if after >= 5 {
			if got, floor := c.rate(c.detected), minFound5-se(minFound5); got < floor {
				t.Errorf("+5%% step under 2%% noise, %d entries after: found %.1f%%, want ≥ %.0f%% (bound %.1f%%)", after, 100*got, 100*minFound5, 100*floor)
			}
		}
	}
	t.Logf("+5%% step after 20 entries under 2%% lognormal noise\n%s", later.String())
}

// The targets TestAccuracy holds the defaults to, the issue's: at most 1
// false regression per 100 A/A series, and 90% of +5% steps under 2% noise
// found within 5 entries after them.
const (
	maxFalseRegressions = 0.01 // per A/A series, any noise model and least magnitude
	minFound5           = 0.90 // +5% under 2% noise, 5 entries after (and more), least magnitude 2.5%
)
