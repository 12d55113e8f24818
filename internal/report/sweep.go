package report

import (
	"slices"
	"strconv"

	"github.com/llmgate/llmgate/results"
)

// sweep is the runs of one scenario that vary a single sweep key.
type sweep struct {
	Scenario, Key string
	// Labels are the key's values in order; Numeric when all parse as numbers.
	Labels  []string
	Numeric bool
	// Current and Baseline hold the run at each label, nil where absent.
	Current, Baseline []*results.Run
}

// sweeps finds the single-key sweeps of cur (and the matching baseline runs).
func sweeps(cur, base *results.File) []sweep {
	var out []sweep
	byScenario := map[string][]*results.Run{}
	var order []string
	for i := range cur.Runs {
		r := &cur.Runs[i]
		if len(r.Params) != 1 {
			continue
		}
		if _, ok := byScenario[r.Scenario]; !ok {
			order = append(order, r.Scenario)
		}
		byScenario[r.Scenario] = append(byScenario[r.Scenario], r)
	}
	baseRuns := map[string]*results.Run{}
	if base != nil {
		for i := range base.Runs {
			baseRuns[base.Runs[i].Name] = &base.Runs[i]
		}
	}
	for _, sc := range order {
		runs := byScenario[sc]
		if len(runs) < 2 {
			continue
		}
		var key string
		for k := range runs[0].Params {
			key = k
		}
		numeric := true
		for _, r := range runs {
			if _, err := strconv.ParseFloat(r.Params[key], 64); err != nil {
				numeric = false
			}
		}
		if numeric {
			slices.SortStableFunc(runs, func(a, b *results.Run) int {
				x, _ := strconv.ParseFloat(a.Params[key], 64)
				y, _ := strconv.ParseFloat(b.Params[key], 64)
				switch {
				case x < y:
					return -1
				case x > y:
					return 1
				}
				return 0
			})
		}
		s := sweep{Scenario: sc, Key: key, Numeric: numeric}
		for _, r := range runs {
			if _, ok := r.Params[key]; !ok {
				continue
			}
			s.Labels = append(s.Labels, r.Params[key])
			s.Current = append(s.Current, r)
			s.Baseline = append(s.Baseline, baseRuns[r.Name])
		}
		out = append(out, s)
	}
	return out
}

// measured reports whether a run has numbers to plot.
func measured(r *results.Run) bool {
	return r != nil && r.Status != results.StatusFailed && r.Summary.Requests.Completed > 0
}
