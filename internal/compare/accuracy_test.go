package compare

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/internal/comparetest"
	"github.com/llmgate/llmgate/results"
	"golang.org/x/perf/benchmath"
)

var accuracyTrials = flag.Int("gate.trials", 1000, "comparisons per cell of TestGateAccuracy (docs/comparing.md's tables use 10000)")

// noise is the simulated measurement noise of TestGateAccuracy.
type noise struct {
	name  string
	n     int     // requests per run
	cv    float64 // per-request coefficient of variation (lognormal)
	drift float64 // run-to-run: each run's level is scaled by exp(N(0, drift))
	// slowMax > 0 adds heavy tails: in every run a fraction drawn uniformly
	// from [slowMin, slowMax] of the requests is slowed by a factor drawn
	// uniformly from [2, 4] per request (preemptions, cold caches, GC).
	slowMin, slowMax float64
}

// change is the regression planted in the current run.
type change struct {
	name string
	// scale slows the whole distribution (1.2 is +20% at every quantile).
	scale float64
	// tailFrac of the requests, chosen at random, are slowed by a factor
	// drawn from [2, 3]; the median hardly moves.
	tailFrac float64
}

// accuracyChanges are the changes both accuracy tests plant, against a
// 10% band: none, half the band, the band, 1.5 times it, twice it, and two
// tail-only regressions.
var accuracyChanges = []change{
	{name: "A/A", scale: 1},
	{name: "+5%", scale: 1.05},
	{name: "+10%", scale: 1.10},
	{name: "+15%", scale: 1.15},
	{name: "+20%", scale: 1.20},
	{name: "tail 5% ×2–3", scale: 1, tailFrac: 0.05},
	{name: "tail 10% ×2–3", scale: 1, tailFrac: 0.10},
}

// changeIndex is the index of the change called name in accuracyChanges.
func changeIndex(t *testing.T, name string) int {
	for i, ch := range accuracyChanges {
		if ch.name == name {
			return i
		}
	}
	t.Fatalf("no change %q", name)
	return -1
}

// draw returns one run's sorted TTFT samples under ch.
func (nz noise) draw(rng *rand.Rand, ch change) []float64 {
	xs := comparetest.Lognormal(rng, nz.n, ch.scale*math.Exp(nz.drift*rng.NormFloat64()), nz.cv)
	if nz.slowMax > 0 {
		frac := nz.slowMin + (nz.slowMax-nz.slowMin)*rng.Float64()
		for i := range xs {
			if rng.Float64() < frac {
				xs[i] *= 2 + 2*rng.Float64()
			}
		}
	}
	if ch.tailFrac > 0 {
		for i := range xs {
			if rng.Float64() < ch.tailFrac {
				xs[i] *= 2 + rng.Float64()
			}
		}
	}
	slices.Sort(xs)
	return xs
}

// p95Move is how far ch moves the population's p95 and median under nz,
// measured on 200,000 requests without drift.
func (nz noise) p95Move(ch change) (p95, median float64) {
	big := nz
	big.n, big.drift = 200_000, 0
	base := big.draw(rand.New(rand.NewPCG(7, 7)), change{scale: 1})
	cur := big.draw(rand.New(rand.NewPCG(7, 7)), ch)
	return comparetest.Quantile(cur, 0.95)/comparetest.Quantile(base, 0.95) - 1,
		comparetest.Quantile(cur, 0.5)/comparetest.Quantile(base, 0.5) - 1
}

// fileOf wraps TTFT samples in a one-run results file the way the runner writes it.
func fileOf(xs []float64) *results.File {
	return &results.File{Version: results.SchemaVersion, Runs: []results.Run{{
		Name: "chat", Scenario: "chat", Status: results.StatusOK,
		Summary: results.Summary{TTFT: comparetest.Stats(xs)},
		Samples: &results.Samples{TTFT: xs},
	}}}
}

func mannWhitneyP(a, b []float64) float64 {
	th := &benchmath.Thresholds{CompareAlpha: DefaultAlpha}
	return benchmath.AssumeNothing.Compare(benchmath.NewSample(slices.Clone(a), th), benchmath.NewSample(slices.Clone(b), th)).P
}

// quantileP is the two-sided p-value of the difference of the
// Harrell-Davis p95 estimates with Maritz-Jarrett standard errors.
func quantileP(a, b []float64) float64 {
	ea, sa := HarrellDavisSE(a, 0.95)
	eb, sb := HarrellDavisSE(b, 0.95)
	return math.Erfc(math.Abs(eb-ea) / math.Hypot(sa, sb) / math.Sqrt2)
}

// rules are the gating rules TestGateAccuracy measures; the last is what
// Compare and Confirm do.
var rules = []string{
	"(a) fixed 10% ratio on p95",
	"(b) 10% band + Mann-Whitney",
	"(b') Harrell-Davis p95 + band + Mann-Whitney",
	"(d) Harrell-Davis p95 + band + quantile CI (Maritz-Jarrett)",
	"(c) chosen: Compare+Confirm",
}

// cell is how often each rule failed the gate on one noise model and change.
type cell struct {
	alarms                 []int
	reruns, stillUndecided int
}

// TestGateAccuracy measures, on simulated noise (200 requests a run), how
// often each gating rule fails an A/A comparison (false alarm) and how
// often it catches a regression: the whole distribution slowed by 10% and
// 20%, and tail-only regressions (5% and 10% of the requests slowed ×2–3,
// the median unchanged). Two noise models: lognormal (25% CV, 3% run-to-run
// drift), and heavy-tailed (the same plus, in every run, a random 1–4% of
// requests slowed ×2–4). Rules:
//
//	(a) a fixed 10% ratio on the interpolated p95, as CI benchmark actions do;
//	(b) a 10% band on the interpolated p95 plus Mann-Whitney p < 0.05;
//	(b') as (b) with the Harrell-Davis p95;
//	(d) the Harrell-Davis p95 past the band with the quantile difference
//	    significant (Maritz-Jarrett standard errors), one run;
//	(c) what Compare/Confirm do (the chosen rule).
//
// Run with -v to see the table; the seed is fixed so the figures repeat.
// The default 1000 comparisons per cell hold the targets with a margin for
// their sampling error; -gate.trials 10000 gives docs/comparing.md's figures.
func TestGateAccuracy(t *testing.T) {
	trials := *accuracyTrials
	switch {
	case testing.Short():
		trials = 200
	case raceEnabled && trials > 400:
		trials = 400
	}
	noises := []noise{
		{name: "lognormal", n: 200, cv: 0.25, drift: 0.03},
		{name: "heavy-tailed", n: 200, cv: 0.25, drift: 0.03, slowMin: 0.01, slowMax: 0.04},
	}
	changes := accuracyChanges
	cfg := Config{Alpha: DefaultAlpha, Tolerances: []Tolerance{{Metric: "ttft.p95", Relative: true, Amount: 0.10}}}
	const band = 1.10
	cells := make([][]cell, len(noises))
	for ni, nz := range noises {
		cells[ni] = make([]cell, len(changes))
		for ci, ch := range changes {
			cl := &cells[ni][ci]
			cl.alarms = make([]int, len(rules))
			rng := rand.New(rand.NewPCG(20261102, uint64(100*ni+ci)))
			for range trials {
				b, c1 := nz.draw(rng, change{scale: 1}), nz.draw(rng, ch)
				ratio := comparetest.Quantile(c1, 0.95) / comparetest.Quantile(b, 0.95)
				p := mannWhitneyP(b, c1)
				hd := HarrellDavis(c1, 0.95) / HarrellDavis(b, 0.95)
				qp := quantileP(b, c1)
				alarms := []bool{ratio > band, ratio > band && p < DefaultAlpha, hd > band && p < DefaultAlpha, hd > band && qp < DefaultAlpha, false}

				base, cur := fileOf(b), fileOf(c1)
				c := Compare(base, cur, cfg)
				if len(c.RerunRuns()) > 0 {
					cl.reruns++
					c = Confirm(base, cur, fileOf(nz.draw(rng, ch)), cfg)
					if c.Counts().ByVerdict[Inconclusive] > 0 {
						cl.stillUndecided++
					}
				}
				alarms[len(alarms)-1] = c.Failed()
				for i, a := range alarms {
					if a {
						cl.alarms[i]++
					}
				}
			}
		}
	}
	pct := func(n int) string { return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(trials)) }
	var b strings.Builder
	fmt.Fprintf(&b, "gate accuracy: %d comparisons per cell, 200 requests/run, band 10%% on ttft.p95, alpha 0.05, seed 20261102\n", trials)
	for ni, nz := range noises {
		fmt.Fprintf(&b, "\nnoise: %s (CV %.0f%%, drift %.0f%%", nz.name, 100*nz.cv, 100*nz.drift)
		if nz.slowMax > 0 {
			fmt.Fprintf(&b, ", %.0f–%.0f%% of requests ×2–4 per run", 100*nz.slowMin, 100*nz.slowMax)
		}
		b.WriteString(")\n| method |")
		for _, ch := range changes {
			fmt.Fprintf(&b, " %s |", ch.name)
		}
		b.WriteString("\n|---|" + strings.Repeat("---:|", len(changes)) + "\n| true p95 move |")
		for _, ch := range changes {
			p95, med := nz.p95Move(ch)
			fmt.Fprintf(&b, " %+.0f%% (median %+.0f%%) |", 100*p95, 100*med)
		}
		b.WriteString("\n")
		for ri, r := range rules {
			fmt.Fprintf(&b, "| %s |", r)
			for ci := range changes {
				fmt.Fprintf(&b, " %s |", pct(cells[ni][ci].alarms[ri]))
			}
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "| (c) asked for a rerun |")
		for ci := range changes {
			fmt.Fprintf(&b, " %s |", pct(cells[ni][ci].reruns))
		}
		fmt.Fprintf(&b, "\n| (c) inconclusive after it |")
		for ci := range changes {
			fmt.Fprintf(&b, " %s |", pct(cells[ni][ci].stillUndecided))
		}
		b.WriteString("\n")
	}
	t.Log("\n" + b.String())

	// The targets at 200 requests a run: A/A false alarms ≤ 2% on
	// every noise model, ≤ 5% of gates failing at half the band (+5%),
	// ≥ 90% at 1.5 times it (+15%), ≥ 90% of a tail-only regression that
	// moves p95 by ≥ 50% (tail 10%); and, from before the band's rule, ≥ 60%
	// at +10% and ≥ 95% at +20%. Where no rule
	// that keeps A/A at 2% can meet one, the test holds the chosen rule to
	// the best it achieves (measured at 10,000 comparisons, less about two
	// standard errors) so that it cannot get worse unnoticed; why each is
	// out of reach is in docs/comparing.md, "Gate accuracy":
	//   - +10% on a 10% band sits on the band: drift (3% a run) plus the
	//     p95's sampling error (3.5% a run at n=200) spread a single
	//     difference by ~6.5%, so about half land below the band whatever
	//     the rule (42.8% measured);
	//   - +20% needs two runs' mean past the band: 92.0% measured;
	//   - half the band and 1.5 times it are half a band either side of it:
	//     with the two runs' mean spread by ~5.3%, no threshold fails ≤ 5%
	//     at +5% and ≥ 90% at +15% (that needs a spread under 3%): 13.5%
	//     and 74.5% measured (8.6% and 46.5% under heavy tails);
	//   - under heavy tails the p95 itself moves ±15% from run to run with
	//     the share of slow requests, so whole shifts of 10–20% are within
	//     that spread (25.6%, 64.8%) and a p95 +70% tail is caught 86.8%.
	type expect struct {
		noise  int
		change string
		floor  bool // a floor on detection, else a ceiling on false alarms
		rate   float64
	}
	expects := []expect{
		{0, "A/A", false, 0.02}, {1, "A/A", false, 0.02}, // targets, met
		{0, "tail 10% ×2–3", true, 0.90},                 // target, met
		{0, "+5%", false, 0.14}, {1, "+5%", false, 0.09}, // best achievable (target 5%)
		{0, "+15%", true, 0.74}, {1, "+15%", true, 0.46}, // best achievable (target 90%)
		{0, "+10%", true, 0.40}, {0, "+20%", true, 0.90}, // best achievable (targets 60%, 95%)
		{1, "+10%", true, 0.22}, {1, "+20%", true, 0.60}, {1, "tail 10% ×2–3", true, 0.83}, // best achievable (targets 60%, 95%, 90%)
	}
	chosen := len(rules) - 1
	for _, e := range expects {
		got := float64(cells[e.noise][changeIndex(t, e.change)].alarms[chosen]) / float64(trials)
		margin := 2 * math.Sqrt(e.rate*(1-e.rate)/float64(trials))
		if trials >= 10000 {
			margin = 0
		}
		name := noises[e.noise].name + ", " + e.change
		switch {
		case !e.floor && got > e.rate+margin:
			t.Errorf("%s: chosen rule fails the gate in %.1f%%, above %.0f%%", name, 100*got, 100*e.rate)
		case e.floor && got < e.rate-margin:
			t.Errorf("%s: chosen rule detects %.1f%%, below %.0f%%", name, 100*got, 100*e.rate)
		}
	}
}
