package compare

import (
	"testing"

	"github.com/llmgate/llmgate/results"
)

// TestNoRegressionInsideBand holds every rule to the band: a change whose
// estimate is inside it is never a regression, however significant. A/B
// jobs 8% slower as a whole on a 10% band shift significantly, many p95
// estimates inside the band (the rule before called a regression on a
// shift past 70% of the band alone); they are judged in one job, then over
// two (ConfirmAB), and single runs of the same requests against a
// baseline file, with their confirming reruns.
func TestNoRegressionInsideBand(t *testing.T) {
	cfg := Config{Tolerances: []Tolerance{{Metric: "ttft.p95", Relative: true, Amount: 0.10}, {Metric: "ttft.mean", Relative: true, Amount: 0.10}}}
	var inBand, past, significantInBand int
	check := func(how string, seed uint64, c *Comparison) {
		t.Helper()
		for _, r := range c.Rows {
			switch {
			case r.Verdict == Regression && !pastBand(&r):
				t.Errorf("%s, seed %d: %s %+.1f%% inside the 10%% band is a regression (%s, p %.4f): %s", how, seed, r.Metric.Name, 100*r.Change, r.Test, r.P, r.Reason)
			case r.SignificantInBand && (r.Verdict != Unchanged || pastBand(&r)):
				t.Errorf("%s, seed %d: %s %+.1f%% marked significant inside the band, verdict %s", how, seed, r.Metric.Name, 100*r.Change, r.Verdict)
			}
			switch {
			case pastBand(&r):
				past++
			case r.Change > 0:
				inBand++
			}
			if r.SignificantInBand {
				significantInBand++
			}
		}
	}
	for seed := uint64(1); seed <= 60; seed++ {
		base, cand := abFiles(seed, 8, 25, 1.08)
		check("A/B", seed, Compare(base, cand, cfg))
		rb, rc := abFiles(1000+seed, 8, 25, 1.08)
		check("A/B confirmed", seed, ConfirmAB(base, cand, rb, rc, cfg))
		// The same requests, each side as a file of its own.
		strip := func(f *results.File) *results.File {
			g := *f
			g.AB = nil
			g.Runs = []results.Run{f.Runs[0]}
			g.Runs[0].Blocks = nil
			return &g
		}
		check("baseline file", seed, Compare(strip(base), strip(cand), cfg))
		check("baseline file confirmed", seed, Confirm(strip(base), strip(cand), strip(rc), cfg))
	}
	// The test must have seen both sides of the band, and significant
	// changes inside it.
	if inBand == 0 || past == 0 || significantInBand == 0 {
		t.Errorf("rows inside the band %d, past it %d, significant inside it %d: want some of each", inBand, past, significantInBand)
	}
}

// TestInBandIsUnchanged is inBand's wording and mark.
func TestInBandIsUnchanged(t *testing.T) {
	tol := Tolerance{Metric: "ttft.p95", Relative: true, Amount: 0.10}
	r := Row{Tolerance: tol, ChangeEstimate: ChangeEstimate{Change: 0.08}, Judgement: Judgement{Verdict: Regression, Rerun: true}}
	inBand(&r, "within the band", true)
	if r.Verdict != Unchanged || !r.SignificantInBand || r.Rerun || r.Reason != "significant, but within the band" {
		t.Errorf("worse inside the band: %s, marked %v, rerun %v, %q", r.Verdict, r.SignificantInBand, r.Rerun, r.Reason)
	}
	r = Row{Tolerance: tol, ChangeEstimate: ChangeEstimate{Change: -0.08}}
	inBand(&r, "within the band", true)
	if r.SignificantInBand || r.Reason != "within the band" {
		t.Errorf("better inside the band marked significant worse: %v, %q", r.SignificantInBand, r.Reason)
	}
}
