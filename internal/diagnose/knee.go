package diagnose

import (
	"sort"
	"strconv"

	"github.com/llmgate/llmgate/results"
)

// Knee is what a sweep says about its throughput–latency curve.
type Knee struct {
	// Scenario is the swept scenario; Key the sweep key.
	Scenario, Key string
	// At is the run at the knee: past it, latency grows faster than
	// throughput. nil for sweeps of fewer than three measured runs.
	At *results.Run
	// BestPassing is the run of highest throughput whose asserts all hold;
	// nil when none holds (or the scenario has no asserts).
	BestPassing *results.Run
}

// MinKneePoints is the fewest measured runs a sweep needs for a knee.
const MinKneePoints = 3

// MinKneeScore is how far above the chord (in scaled units) a run must be
// to be a knee; a curve along its chord (throughput and latency growing
// together) has none.
const MinKneeScore = 0.1

// sample is one run of a sweep at its key's value v.
type sample struct {
	v   float64
	run *results.Run
}

// Knees returns the knee of every sweep of f over one numeric key, in
// file order. The knee is the run farthest above the chord of the curve
// once throughput (output tokens/s) and TTFT p95 are each scaled to 0..1:
// the run that maximises scaled throughput less scaled latency. Only a
// sweep of the load has one (loadAxis): a curve over burstiness or the
// server's memory is not a load curve, and its "knee" means nothing. A
// run that never showed the load it is named after (results.Run.Shortfall:
// too few requests per user) is no point of its curve, nor its best run.
func Knees(f *results.File) []Knee {
	if f == nil {
		return nil
	}
	bySc := map[string][]sample{}
	keys := map[string]string{}
	var order []string
	for i := range f.Runs {
		r := &f.Runs[i]
		if len(r.Params) != 1 || (r.Status != results.StatusOK && r.Status != results.StatusInvalid) || r.Summary.Requests.Completed == 0 {
			continue
		}
		if r.Shortfall() != nil {
			continue // not at the load it is named after: the run table's notes say so
		}
		for k, s := range r.Params {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				continue
			}
			if _, ok := bySc[r.Scenario]; !ok {
				order = append(order, r.Scenario)
				keys[r.Scenario] = k
			}
			if keys[r.Scenario] == k {
				bySc[r.Scenario] = append(bySc[r.Scenario], sample{v, r})
			}
		}
	}
	var out []Knee
	for _, sc := range order {
		pts := bySc[sc]
		if len(pts) < 2 {
			continue
		}
		sort.SliceStable(pts, func(i, j int) bool { return pts[i].v < pts[j].v })
		k := Knee{Scenario: sc, Key: keys[sc]}
		for _, p := range pts {
			if len(p.run.Asserts) == 0 || !allPassed(p.run.Asserts) {
				continue
			}
			if k.BestPassing == nil || p.run.Summary.Throughput.OutputTokens > k.BestPassing.Summary.Throughput.OutputTokens {
				k.BestPassing = p.run
			}
		}
		if len(pts) >= MinKneePoints && loadAxis(keys[sc], pts) {
			x0, y0 := point(pts[0].run)
			minX, maxX, minY, maxY := x0, x0, y0, y0
			for _, p := range pts {
				x, y := point(p.run)
				minX, maxX = min(minX, x), max(maxX, x)
				minY, maxY = min(minY, y), max(maxY, y)
			}
			best := MinKneeScore
			for _, p := range pts {
				x, y := point(p.run)
				score := scale(x, minX, maxX) - scale(y, minY, maxY)
				if score > best {
					best, k.At = score, p.run
				}
			}
		}
		if k.At != nil || k.BestPassing != nil {
			out = append(out, k)
		}
	}
	return out
}

// loadAxis reports whether a sweep's key sets its runs' load: their
// recorded concurrency (users, or an open loop's cap) or arrival rate
// differs between its runs. In files that predate the recorded load, the
// key's name says it: concurrency or rate.
func loadAxis(key string, pts []sample) bool {
	for _, p := range pts {
		if p.run.Load == nil {
			return key == "concurrency" || key == "rate"
		}
	}
	first := pts[0].run.Load
	for _, p := range pts[1:] {
		if l := p.run.Load; l.Concurrency != first.Concurrency || l.Rate != first.Rate {
			return true
		}
	}
	return false
}

// point returns a run's point on the curve: output tokens/s and TTFT p95.
func point(r *results.Run) (x, y float64) {
	return r.Summary.Throughput.OutputTokens, r.Summary.TTFT.P95
}

func scale(v, lo, hi float64) float64 {
	if hi <= lo {
		return 0
	}
	return (v - lo) / (hi - lo)
}

func allPassed(as []results.AssertResult) bool {
	for _, a := range as {
		if !a.Passed {
			return false
		}
	}
	return true
}
