package compare

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/llmgate/llmgate/internal/comparetest"
	"github.com/llmgate/llmgate/results"
)

func TestSignedRankP(t *testing.T) {
	for _, c := range []struct {
		name string
		xs   []float64
		want float64
	}{
		{"all 8 worse", []float64{1, 2, 3, 4, 5, 6, 7, 8}, 1.0 / 256},
		{"all 8 better", []float64{-1, -2, -3, -4, -5, -6, -7, -8}, 1},
		// W+ = 8+7 = 15 of 36: 174 of the 256 sign sets reach it.
		{"two largest worse", []float64{-1, -2, -3, -4, -5, -6, 7, 8}, 174.0 / 256},
		{"zeros dropped", []float64{0, 0, 1, 2}, 0.25},
		{"ties share ranks", []float64{1, 1}, 0.25},
	} {
		if got := signedRankP(c.xs); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: signedRankP = %v, want %v", c.name, got, c.want)
		}
	}
	if !math.IsNaN(signedRankP([]float64{1})) {
		t.Error("one pair gives a p-value")
	}
	// The normal approximation beyond 24 pairs agrees with the exact tail
	// at the edge (the exact p of 24 pairs all worse is 2^-24).
	xs := make([]float64, 30)
	for i := range xs {
		xs[i] = float64(i + 1)
	}
	if p := signedRankP(xs); p > 1e-5 {
		t.Errorf("30 pairs all worse: p = %v", p)
	}
}

// abFiles makes the two sides of an A/B job: pairs blocks of n TTFT
// samples on each side, the candidate's scaled by scale, both sides'
// images as given.
func abFiles(seed uint64, pairs, n int, scale float64) (base, cand *results.File) {
	rng := rand.New(rand.NewPCG(seed, 1))
	var bb, cb []results.Block
	for k := range pairs {
		level := math.Exp(0.005 * rng.NormFloat64())
		b := comparetest.Lognormal(rng, n, 100*level, 0.25)
		c := comparetest.Lognormal(rng, n, 100*level*scale, 0.25)
		bb = append(bb, results.Block{Pair: k, Slot: 2 * k, Status: results.StatusOK, Summary: results.Summary{TTFT: results.ComputeStats(b)}, Samples: &results.Samples{TTFT: b}})
		cb = append(cb, results.Block{Pair: k, Slot: 2*k + 1, Status: results.StatusOK, Summary: results.Summary{TTFT: results.ComputeStats(c)}, Samples: &results.Samples{TTFT: c}})
	}
	base, cand = abFileOf(bb, results.SideBaseline), abFileOf(cb, results.SideCandidate)
	base.Environment.Image, cand.Environment.Image = "vllm:main", "vllm:pr"
	return base, cand
}

func TestCompareAB(t *testing.T) {
	cfg := Config{Tolerances: []Tolerance{{Metric: "ttft.p95", Relative: true, Amount: 0.10}, {Metric: "ttft.mean", Relative: true, Amount: 0.10}}}
	base, cand := abFiles(1, 8, 25, 1.25)
	c := Compare(base, cand, cfg)
	if !c.InOneJob() {
		t.Fatal("two A/B sides are not recognised as one job")
	}
	if len(c.Warnings) != 0 {
		t.Errorf("the sides' images differ on purpose, yet: %v", c.Warnings)
	}
	for _, r := range c.Rows {
		if r.Verdict != Regression || (r.Test != PairedJackknife && r.Test != PairedShift) || r.N1 != 8 {
			t.Errorf("+25%%: %s %s (%s, p %.4f, %d pairs): %s", r.Metric.Name, r.Verdict, r.Test, r.P, r.N1, r.Reason)
		}
	}
	base, cand = abFiles(2, 8, 25, 1)
	for _, r := range Compare(base, cand, cfg).Rows {
		if r.Verdict == Regression {
			t.Errorf("A/A: %s %s (%s, p %.4f, change %.3f)", r.Metric.Name, r.Verdict, r.Test, r.P, r.Change)
		}
	}
	// Without blocks the same files are judged as separate jobs.
	base.Runs[0].Blocks, cand.Runs[0].Blocks = nil, nil
	if r := Compare(base, cand, cfg).Rows[0]; r.Test == PairedBlocks || r.Test == PairedShift || r.Test == PairedJackknife {
		t.Errorf("runs without blocks judged as pairs: %s", r.Test)
	}
}

// TestConfirmAB decides a row left inconclusive by one A/B job over the
// block pairs of both jobs.
func TestConfirmAB(t *testing.T) {
	cfg := Config{Tolerances: []Tolerance{{Metric: "ttft.p95", Relative: true, Amount: 0.10}}}
	base, cand := abFiles(3, 8, 25, 1.25)
	c := Compare(base, cand, cfg)
	rb, rc := abFiles(4, 8, 25, 1.25)
	// A job whose candidate sits near the band: find one left inconclusive.
	var mid, midCand *results.File
	for seed := uint64(10); seed < 200 && mid == nil; seed++ {
		b, c := abFiles(seed, 8, 25, 1.11)
		if Compare(b, c, cfg).Rows[0].Verdict == Inconclusive {
			mid, midCand = b, c
		}
	}
	if mid == nil {
		t.Fatal("no job near the band was left inconclusive")
	}
	got := ConfirmAB(mid, midCand, rb, rc, cfg).Rows[0]
	if got.Verdict != Regression || got.Rerun {
		t.Errorf("the A/B rerun (+25%%) did not decide the row: %s, %s", got.Verdict, got.Reason)
	}
	if got.Confirm == nil || got.N1 != 16 {
		t.Errorf("confirmed row: confirm %v, %d pairs, want the rerun's row and 16 pairs", got.Confirm, got.N1)
	}
	// A row that needed no rerun keeps its verdict.
	if got := ConfirmAB(base, cand, rb, rc, cfg).Rows[0]; got.Verdict != c.Rows[0].Verdict || got.Confirm != nil {
		t.Errorf("a decided row changed under ConfirmAB: %s → %s", c.Rows[0].Verdict, got.Verdict)
	}
}

// TestJackknifePairsSE checks that the A/B test of a statistic sees the
// variance between blocks: with every block's level moved by 20% (σ of
// log), far more than the sampling error of 25 requests, the jackknife's
// standard error over the pairs (less the ABSideDrift allowance) must
// match the spread of the change over many jobs, where the Maritz-Jarrett
// error of the pooled requests, which treats them as independent, falls
// far short of it.
func TestJackknifePairsSE(t *testing.T) {
	const drift, jobs = 0.2, 300
	rng := rand.New(rand.NewPCG(31, 7))
	cfg := Config{Tolerances: []Tolerance{{Metric: "ttft.p95", Relative: true, Amount: 0.10}}}
	var ests, ses, mjs []float64
	for range jobs {
		var bb, cb []results.Block
		for k := range 8 {
			b := comparetest.Lognormal(rng, 25, 100*math.Exp(drift*rng.NormFloat64()), 0.25)
			c := comparetest.Lognormal(rng, 25, 100*math.Exp(drift*rng.NormFloat64()), 0.25)
			bb = append(bb, results.Block{Pair: k, Slot: 2 * k, Status: results.StatusOK, Summary: results.Summary{TTFT: results.ComputeStats(b)}, Samples: &results.Samples{TTFT: b}})
			cb = append(cb, results.Block{Pair: k, Slot: 2*k + 1, Status: results.StatusOK, Summary: results.Summary{TTFT: results.ComputeStats(c)}, Samples: &results.Samples{TTFT: c}})
		}
		base, cand := abFileOf(bb, results.SideBaseline), abFileOf(cb, results.SideCandidate)
		r := Compare(base, cand, cfg).Rows[0]
		if r.Test != PairedJackknife && r.Test != PairedShift {
			t.Fatalf("p95 of an A/B job judged by %s", r.Test)
		}
		est, se, ok := jackknifePairs(&r, &base.Runs[0], &cand.Runs[0], 8, 1)
		if !ok {
			t.Fatal("no jackknife for the p95 of samples in every block")
		}
		ests = append(ests, est)
		ses = append(ses, math.Sqrt(se*se-2*ABSideDrift*ABSideDrift))
		bv, bse := HarrellDavisSE(sortedCopy(base.Runs[0].Samples.TTFT), 0.95)
		cv, cse := HarrellDavisSE(sortedCopy(cand.Runs[0].Samples.TTFT), 0.95)
		mjs = append(mjs, math.Hypot(bse/bv, cse/cv))
	}
	var sum, sumSq, meanSE, meanMJ float64
	for i, e := range ests {
		sum += e
		sumSq += e * e
		meanSE += ses[i] / jobs
		meanMJ += mjs[i] / jobs
	}
	sd := math.Sqrt(sumSq/jobs - (sum/jobs)*(sum/jobs))
	if meanSE < 0.75*sd || meanSE > 1.25*sd {
		t.Errorf("jackknife standard error %.4f, against a spread of %.4f over %d jobs", meanSE, sd, jobs)
	}
	if meanMJ > 0.75*sd {
		t.Errorf("the pooled requests' Maritz-Jarrett error %.4f is near the spread %.4f: the blocks' drift is too small to test anything", meanMJ, sd)
	}
	t.Logf("spread of the change %.4f, jackknife error %.4f, Maritz-Jarrett error of the pooled requests %.4f", sd, meanSE, meanMJ)
}

// TestSideDrifts applies the side allowance to the tail and the mean,
// which a server's share of slow requests moves, and not to the body.
func TestSideDrifts(t *testing.T) {
	for name, want := range map[string]bool{"ttft.p95": true, "tpot.p99": true, "e2el.mean": true, "tpot.p50": false} {
		m, ok := results.LookupMetric(name)
		if !ok {
			t.Fatalf("no metric %s", name)
		}
		if got := sideDrifts(m); got != want {
			t.Errorf("sideDrifts(%s) = %v, want %v", name, got, want)
		}
	}
}
