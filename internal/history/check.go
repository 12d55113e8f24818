package history

import (
	"math"
	"slices"

	"github.com/llmgate/llmgate/internal/changepoint"
	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/results"
)

// DefaultWindow is how many of a series' newest healthy entries Check
// searches: older change points were reported when they were new, and the
// search costs grow with the square of the length.
const DefaultWindow = 100

// AcceptSlack is how many entries a change point may move, as entries
// arrive after it, and stay covered by its acceptance.
const AcceptSlack = 2

// CheckOptions configures Check.
type CheckOptions struct {
	// Tolerances are the metrics to search and their gate bands; the least
	// magnitude of each is half its band unless MinChange is set.
	Tolerances []compare.Tolerance
	// Alpha is the significance level E-divisive and the recent-step
	// test share; 0 means changepoint.DefaultAlpha.
	Alpha float64
	// MinChange, when above 0, is the least relative change for every
	// metric instead of half its band.
	MinChange float64
	// Permutations is how many permutations a test draws at least; 0
	// means the default.
	Permutations int
	// Window is how many newest healthy entries of each series are
	// searched; 0 means DefaultWindow.
	Window int
	// Last, when above 0, keeps only change points whose new level starts
	// among a series' Last newest healthy entries.
	Last int
}

// Point is one entry of a series.
type Point struct {
	Entry *Entry
	// Estimate is the run's value of the metric; Has is false when the
	// run lacks the run or the metric.
	Estimate Estimate
	Has      bool
	// Status and Reasons are the run's; a point is evidence only when
	// Status is results.StatusOK and Has.
	Status  results.Status
	Reasons []string
}

// Used reports whether the point is evidence: a healthy run with the metric.
func (p *Point) Used() bool { return p.Has && p.Status == results.StatusOK }

// Series is one metric of one run of one suite over the entries.
type Series struct {
	Suite, Run string
	Metric     results.Metric
	Tolerance  compare.Tolerance
	// Points holds every entry of the suite that has the run, in order,
	// used or not.
	Points []Point
	// Searched is how many of the newest used points were searched.
	Searched int
	// ChangePoints are the change points found, oldest first.
	ChangePoints []ChangePoint
}

// Used returns the indices into Points of the points that are evidence.
func (s *Series) Used() []int {
	var idx []int
	for i := range s.Points {
		if s.Points[i].Used() {
			idx = append(idx, i)
		}
	}
	return idx
}

// ChangePoint is one change of level in a series.
type ChangePoint struct {
	// Before is the last entry of the old level, After the first of the
	// new one (indices into the series' Points).
	Before, After int
	// From and To are the medians of the levels either side.
	From, To float64
	// Change is To/From − 1, as the values moved (+ = up).
	Change float64
	// P is the p-value of the permutation test that found it.
	P float64
	// Recent is true when the recent-step test found it (a step among
	// the newest entries), false when E-divisive did.
	Recent bool
	// Regression is true when the change is for the worse (latency up,
	// throughput down).
	Regression bool
	// Since is how many used entries the new level holds up to the newest.
	Since int
	// Accepted is the acceptance that covers it; nil when none does.
	Accepted *Acceptance
}

// Result is what Check found.
type Result struct {
	Series []*Series
}

// Unaccepted returns the regression change points that no acceptance
// covers, with their series.
func (r *Result) Unaccepted() []Found {
	var out []Found
	for _, s := range r.Series {
		for i := range s.ChangePoints {
			if c := &s.ChangePoints[i]; c.Regression && c.Accepted == nil {
				out = append(out, Found{s, c})
			}
		}
	}
	return out
}

// All returns every change point found, with its series.
func (r *Result) All() []Found {
	var out []Found
	for _, s := range r.Series {
		for i := range s.ChangePoints {
			out = append(out, Found{s, &s.ChangePoints[i]})
		}
	}
	return out
}

// Found is a change point and its series.
type Found struct {
	Series *Series
	*ChangePoint
}

// Check builds, for each suite of entries, each run and each tolerance, the
// series of estimates, and finds its change points among the healthy
// entries: E-divisive with a permutation test, those smaller than the
// least magnitude merged away, then the recent-step test for a step among
// the newest entries in the metric's worse direction, the two sharing
// o.Alpha. Acceptances cover the
// change points of their series whose new level starts within AcceptSlack
// entries of the accepted entry.
func Check(entries []*Entry, accepted []*Acceptance, o CheckOptions) *Result {
	res := &Result{}
	for _, s := range BuildSeries(entries, o.Tolerances) {
		o.find(s)
		for i := range s.ChangePoints {
			s.ChangePoints[i].Accepted = covering(s, &s.ChangePoints[i], accepted)
		}
		res.Series = append(res.Series, s)
	}
	return res
}

// BuildSeries groups entries by suite and run and makes one series per
// tolerance whose metric the run has in some entry; suites by name, runs
// in order of first appearance.
func BuildSeries(entries []*Entry, tolerances []compare.Tolerance) []*Series {
	var suites []string
	bySuite := map[string][]*Entry{}
	for _, e := range entries {
		if _, ok := bySuite[e.Suite]; !ok {
			suites = append(suites, e.Suite)
		}
		bySuite[e.Suite] = append(bySuite[e.Suite], e)
	}
	slices.Sort(suites)
	var out []*Series
	for _, suite := range suites {
		es := bySuite[suite]
		var runs []string
		seen := map[string]bool{}
		for _, e := range es {
			for _, r := range e.Runs {
				if !seen[r.Name] {
					seen[r.Name] = true
					runs = append(runs, r.Name)
				}
			}
		}
		for _, run := range runs {
			for _, t := range tolerances {
				m, ok := results.LookupMetric(t.Metric)
				if !ok {
					continue
				}
				s := &Series{Suite: suite, Run: run, Metric: m, Tolerance: t}
				any := false
				for _, e := range es {
					r := e.Run(run)
					if r == nil {
						continue
					}
					est, has := r.Estimates[m.Name]
					any = any || has
					s.Points = append(s.Points, Point{Entry: e, Estimate: est, Has: has, Status: r.Status, Reasons: r.Reasons})
				}
				if any {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// find searches the newest used points of s.
func (o CheckOptions) find(s *Series) {
	used := s.Used()
	window := o.Window
	if window <= 0 {
		window = DefaultWindow
	}
	if len(used) > window {
		used = used[len(used)-window:]
	}
	s.Searched = len(used)
	xs := make([]float64, len(used))
	for i, p := range used {
		xs[i] = s.Points[p].Estimate.Value
	}
	co := changepoint.Options{Alpha: o.Alpha, Permutations: o.Permutations, Worse: changepoint.Up}
	if s.Metric.Better == results.HigherIsBetter {
		co.Worse = changepoint.Down
	}
	switch {
	case o.MinChange > 0:
		co.MinChange = o.MinChange
	case s.Tolerance.Relative:
		co.MinChange = s.Tolerance.Amount / 2
	default:
		co.MinDelta = s.Tolerance.Amount / 2
	}
	for _, c := range changepoint.Find(xs, co) {
		since := len(used) - c.Index
		if o.Last > 0 && since > o.Last {
			continue
		}
		up := c.After > c.Before
		s.ChangePoints = append(s.ChangePoints, ChangePoint{
			Before: used[c.Index-1], After: used[c.Index],
			From: c.Before, To: c.After, Change: c.Change(), P: c.P, Recent: c.Recent,
			Regression: up == (s.Metric.Better == results.LowerIsBetter) && c.After != c.Before,
			Since:      since,
		})
	}
}

// covering returns the newest acceptance of s's series whose entry is
// within AcceptSlack used entries of c's new level.
func covering(s *Series, c *ChangePoint, accepted []*Acceptance) *Acceptance {
	pos := map[string]int{}
	for i, p := range s.Used() {
		pos[s.Points[p].Entry.ID] = i
	}
	at := pos[s.Points[c.After].Entry.ID]
	var best *Acceptance
	for _, a := range accepted {
		if a.Suite != s.Suite || a.Run != s.Run || a.Metric != s.Metric.Name {
			continue
		}
		if p, ok := pos[a.Entry]; ok && math.Abs(float64(p-at)) <= AcceptSlack {
			best = a
		}
	}
	return best
}
