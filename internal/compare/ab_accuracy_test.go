package compare

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/internal/comparetest"
	"github.com/llmgate/llmgate/results"
)

// abJob is one simulated A/B job of TestABGateAccuracy: pairs block pairs
// of n requests a block on each side, in Thue-Morse order, each block's
// level scaled by its own exp(N(0, blockDrift)) and by a linear trend
// across the job; heavy tails, when the noise has them, are drawn per
// block, for each block on its own (the share of slow requests follows
// the moment's conditions; the two blocks of a pair do not share it, which
// is the harder case for a paired test), or, with tailsPerSide, once per
// side for the whole job (each server keeps its own share: a persistent
// difference between two identical servers that no pairing can tell from
// a change, and only a second job, drawing again, can).
type abJob struct {
	pairs, n     int
	blockDrift   float64 // σ of log between blocks inside the job
	trend        float64 // the level moves by this much (log) from first block to last
	tailsPerSide bool
}

// draw returns the baseline's and the candidate's blocks of one run.
func (j abJob) draw(rng *rand.Rand, nz noise, ch change) (base, cand []results.Block) {
	slots := 2 * j.pairs
	var frac [2]float64
	for s := range frac {
		if nz.slowMax > 0 {
			frac[s] = nz.slowMin + (nz.slowMax-nz.slowMin)*rng.Float64()
		}
	}
	for slot := range slots {
		side := bits.OnesCount(uint(slot)) % 2 // 0 baseline (A), 1 candidate (B)
		if nz.slowMax > 0 && !j.tailsPerSide {
			frac[side] = nz.slowMin + (nz.slowMax-nz.slowMin)*rng.Float64()
		}
		level := math.Exp(j.blockDrift*rng.NormFloat64() + j.trend*(float64(slot)/float64(slots-1)-0.5))
		scale, tail := 1.0, 0.0
		if side == 1 {
			scale, tail = ch.scale, ch.tailFrac
		}
		xs := comparetest.Lognormal(rng, j.n, scale*level, nz.cv)
		for i := range xs {
			if rng.Float64() < frac[side] {
				xs[i] *= 2 + 2*rng.Float64()
			}
			if tail > 0 && rng.Float64() < tail {
				xs[i] *= 2 + rng.Float64()
			}
		}
		b := results.Block{Slot: slot, Status: results.StatusOK, Summary: results.Summary{TTFT: comparetest.Stats(xs)}, Samples: &results.Samples{TTFT: xs}}
		if side == 0 {
			b.Pair = len(base)
			base = append(base, b)
		} else {
			b.Pair = len(cand)
			cand = append(cand, b)
		}
	}
	return base, cand
}

// abFileOf is one side's results file of an A/B job, as RunAB writes it.
func abFileOf(blocks []results.Block, side results.ABSide) *results.File {
	sum, smp := results.MergeBlocks(blocks)
	return &results.File{Version: results.SchemaVersion, AB: &results.AB{Side: side}, Runs: []results.Run{{
		Name: "chat", Scenario: "chat", Status: results.StatusOK, Summary: sum, Samples: smp, Blocks: blocks,
	}}}
}

// pooled is the samples of one side's blocks scaled by a job's level.
func pooled(blocks []results.Block, level float64) []float64 {
	var xs []float64
	for _, b := range blocks {
		for _, x := range b.Samples.TTFT {
			xs = append(xs, x*level)
		}
	}
	return xs
}

// TestABGateAccuracy measures the A/B gate (Compare on the two sides of
// one job, judged over its block pairs) beside the baseline-file gate
// (Compare+Confirm on a baseline from another job) on the same requests,
// both with their confirming reruns:
// two sides × 200 requests, 8 block pairs of 25, drift inside the job
// 0.5% (σ of log) between blocks plus a 2% linear trend over the job,
// against 3% between jobs for the baseline file (its baseline and its
// candidate, and the confirming rerun, each from a job of its own). The
// noise models and changes are TestGateAccuracy's. The A/B gate makes a
// confirming A/B rerun, as gate does (ConfirmAB over both jobs' pairs).
// Run with -v to see the table (docs/ab-testing.md has it at -gate.trials
// 10000).
func TestABGateAccuracy(t *testing.T) {
	trials := *accuracyTrials
	switch {
	case testing.Short():
		trials = 200
	case raceEnabled && trials > 400:
		trials = 400
	}
	type model struct {
		noise
		perSide bool
	}
	models := []model{
		{noise: noise{name: "lognormal", n: 200, cv: 0.25, drift: 0.03}},
		{noise: noise{name: "heavy-tailed", n: 200, cv: 0.25, drift: 0.03, slowMin: 0.01, slowMax: 0.04}},
		{noise: noise{name: "heavy-tailed, tails per side", n: 200, cv: 0.25, drift: 0.03, slowMin: 0.01, slowMax: 0.04}, perSide: true},
	}
	changes := accuracyChanges
	job := abJob{pairs: 8, n: 25, blockDrift: 0.005, trend: 0.02}
	cfg := Config{Alpha: DefaultAlpha, Tolerances: []Tolerance{{Metric: "ttft.p95", Relative: true, Amount: 0.10}}}
	type abCell struct{ ab, abReruns, abInconclusive, file int }
	cells := make([][]abCell, len(models))
	for ni, md := range models {
		nz, job := md.noise, job
		job.tailsPerSide = md.perSide
		cells[ni] = make([]abCell, len(changes))
		for ci, ch := range changes {
			cl := &cells[ni][ci]
			rng := rand.New(rand.NewPCG(20261201, uint64(100*ni+ci)))
			for range trials {
				bb, cb := job.draw(rng, nz, ch)
				abBase, abCur := abFileOf(bb, results.SideBaseline), abFileOf(cb, results.SideCandidate)
				c := Compare(abBase, abCur, cfg)
				if len(c.RerunRuns()) > 0 {
					cl.abReruns++
					rb, rc := job.draw(rng, nz, ch)
					c = ConfirmAB(abBase, abCur, abFileOf(rb, results.SideBaseline), abFileOf(rc, results.SideCandidate), cfg)
				}
				if c.Failed() {
					cl.ab++
				} else if c.Counts().ByVerdict[Inconclusive] > 0 {
					cl.abInconclusive++
				}
				// The baseline-file gate: the same requests, each side in a job of its own.
				jobLevel := func() float64 { return math.Exp(nz.drift * rng.NormFloat64()) }
				base, cur := fileOf(sortedCopy(pooled(bb, jobLevel()))), fileOf(sortedCopy(pooled(cb, jobLevel())))
				fc := Compare(base, cur, cfg)
				if len(fc.RerunRuns()) > 0 {
					_, rb := job.draw(rng, nz, ch)
					fc = Confirm(base, cur, fileOf(sortedCopy(pooled(rb, jobLevel()))), cfg)
				}
				if fc.Failed() {
					cl.file++
				}
			}
		}
	}
	pct := func(n int) string { return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(trials)) }
	var b strings.Builder
	fmt.Fprintf(&b, "A/B gate accuracy: %d comparisons per cell, 2 sides × 200 requests (8 block pairs of 25), block drift %.1f%%, trend %.0f%% over the job, band 10%% on ttft.p95, alpha 0.05, seed 20261201\n",
		trials, 100*job.blockDrift, 100*job.trend)
	for ni, md := range models {
		nz := md.noise
		fmt.Fprintf(&b, "\nnoise: %s (CV %.0f%%, drift between jobs %.0f%%", nz.name, 100*nz.cv, 100*nz.drift)
		if nz.slowMax > 0 {
			per := "block"
			if md.perSide {
				per = "side"
			}
			fmt.Fprintf(&b, ", %.0f–%.0f%% of requests ×2–4 per %s", 100*nz.slowMin, 100*nz.slowMax, per)
		}
		b.WriteString(")\n| gate fails |")
		for _, ch := range changes {
			fmt.Fprintf(&b, " %s |", ch.name)
		}
		b.WriteString("\n|---|" + strings.Repeat("---:|", len(changes)) + "\n| A/B in one job |")
		for ci := range changes {
			fmt.Fprintf(&b, " %s |", pct(cells[ni][ci].ab))
		}
		b.WriteString("\n| A/B: asked for an A/B rerun |")
		for ci := range changes {
			fmt.Fprintf(&b, " %s |", pct(cells[ni][ci].abReruns))
		}
		b.WriteString("\n| A/B: inconclusive after it |")
		for ci := range changes {
			fmt.Fprintf(&b, " %s |", pct(cells[ni][ci].abInconclusive))
		}
		b.WriteString("\n| baseline file (Compare+Confirm) |")
		for ci := range changes {
			fmt.Fprintf(&b, " %s |", pct(cells[ni][ci].file))
		}
		b.WriteString("\n")
	}
	t.Log("\n" + b.String())

	type expect struct {
		noise  int
		change string
		floor  bool
		rate   float64
	}
	// The targets for A/B: at most 1% of A/A gates fail under every noise
	// model, at most 5% at half the band (+5%), at least 90% at 1.5 times
	// it (+15%); a change inside the band is never a regression, so a change
	// of the band itself (+10%) fails about half (42%). At 10,000
	// comparisons (docs/ab-testing.md's table): A/A 0.0%, 0.1%, 0.2%; +5%
	// 1.7%, 2.9%, 3.6%; +15% 93.0%, 79.9%, 78.9%; +20% 99.6%, 92.4%,
	// 90.1%; tail 10% ×2–3 98.2%, 95.9%, 93.7%. Under heavy tails the p95
	// estimate itself, which must be past the band, spreads by 13–16% from
	// job to job, so +15% misses its target there; the floors there, like
	// those of +20% and of the tail, are what the rule achieves, so that it
	// cannot get worse unnoticed. At 10,000 comparisons (a fixed seed, so
	// the same figures every time) the bounds hold exactly; with fewer,
	// each is widened by two binomial standard errors of its rate (at least
	// of 1%: ±0.6% at the default 1,000, ±1.0% at 400 under -race).
	expects := []expect{
		{0, "A/A", false, 0.01}, {1, "A/A", false, 0.01}, {2, "A/A", false, 0.01}, // targets
		{0, "+5%", false, 0.05}, {1, "+5%", false, 0.05}, {2, "+5%", false, 0.05}, // targets
		{0, "+15%", true, 0.90}, {1, "+15%", true, 0.79}, {2, "+15%", true, 0.78}, // target; best achievable (target 90%)
		{0, "+20%", true, 0.99}, {1, "+20%", true, 0.92}, {2, "+20%", true, 0.90},
		{0, "tail 10% ×2–3", true, 0.98}, {1, "tail 10% ×2–3", true, 0.95}, {2, "tail 10% ×2–3", true, 0.93},
	}
	margin := func(rate float64) float64 {
		if trials >= 10000 {
			return 0
		}
		return 2 * math.Sqrt(max(rate*(1-rate), 0.01*0.99)/float64(trials))
	}
	for _, e := range expects {
		got := float64(cells[e.noise][changeIndex(t, e.change)].ab) / float64(trials)
		name := models[e.noise].name + ", " + e.change
		switch {
		case !e.floor && got > e.rate+margin(e.rate):
			t.Errorf("%s: the A/B gate fails %.2f%%, above %.1f%%", name, 100*got, 100*e.rate)
		case e.floor && got < e.rate-margin(e.rate):
			t.Errorf("%s: the A/B gate detects %.2f%%, below %.1f%%", name, 100*got, 100*e.rate)
		}
	}
	// A/B must not raise more false alarms than the baseline-file gate on
	// the same requests (1.3% to 2.1% at 10,000 comparisons).
	for ni, md := range models {
		ab, file := float64(cells[ni][0].ab)/float64(trials), float64(cells[ni][0].file)/float64(trials)
		if ab > file+margin(file) {
			t.Errorf("%s, A/A: the A/B gate fails %.2f%%, the baseline-file gate %.2f%%", md.name, 100*ab, 100*file)
		}
	}
}

func sortedCopy(xs []float64) []float64 {
	s := append([]float64(nil), xs...)
	slices.Sort(s)
	return s
}
