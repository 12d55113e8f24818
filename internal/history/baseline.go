package history

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/llmgate/llmgate/results"
)

// DefaultBaselineEntries is how many of the newest healthy entries the
// rolling baseline chooses among: the median of five stays a typical run
// with two of them unlucky.
const DefaultBaselineEntries = 5

// BaselineOptions configures Baseline.
type BaselineOptions struct {
	// Suite is the suite whose entries count.
	Suite string
	// Ref, when set, keeps the entries of that git ref only (the pull
	// request's base branch, say).
	Ref string
	// Entries is how many of each run's newest healthy entries are
	// considered; 0 means DefaultBaselineEntries.
	Entries int
	// Metrics are the metrics the median entry is chosen by (the gate's
	// tolerances).
	Metrics []string
	// Source names the store in the file's provenance.
	Source string
}

// BaselineChoice says which entry a run of the baseline came from.
type BaselineChoice struct {
	Run string
	// Chosen is the entry whose run the baseline holds; Among are the
	// entries it was chosen from, oldest first.
	Chosen *Entry
	Among  []*Entry
}

// Baseline builds a baseline results file from the history: for each run,
// among its newest healthy entries, the median entry — the one whose
// values of the gated metrics rank nearest the middle (the medoid of the
// ranks) — and that entry's whole run. The baseline is therefore one real
// run, its summary and samples consistent, so the gate's tests and their
// calibration (TestGateAccuracy) hold as for a baseline file, while one
// unlucky run of main can no longer be the baseline. The entries must have
// been read WithResults. It returns nil when no entry has a healthy run.
func Baseline(entries []*Entry, o BaselineOptions) (*results.File, []BaselineChoice, error) {
	k := o.Entries
	if k <= 0 {
		k = DefaultBaselineEntries
	}
	var es []*Entry
	for _, e := range entries {
		if e.Suite == o.Suite && (o.Ref == "" || e.Ref == o.Ref) {
			es = append(es, e)
		}
	}
	var order []string
	seen := map[string]bool{}
	for i := len(es) - 1; i >= 0; i-- { // runs of the newest entries first
		for _, r := range es[i].Runs {
			if !seen[r.Name] {
				seen[r.Name] = true
				order = append(order, r.Name)
			}
		}
	}
	var out *results.File
	var choices []BaselineChoice
	for _, name := range order {
		var among []*Entry
		for i := len(es) - 1; i >= 0 && len(among) < k; i-- {
			if r := es[i].Run(name); r != nil && r.Healthy() {
				among = append(among, es[i])
			}
		}
		if len(among) == 0 {
			continue
		}
		slices.Reverse(among)
		chosen := medianEntry(among, name, o.Metrics)
		f := chosen.Results()
		if f == nil {
			return nil, nil, fmt.Errorf("entry %s was read without its results file", chosen.ID)
		}
		run := runOf(f, name)
		if run == nil {
			return nil, nil, fmt.Errorf("entry %s lists run %s that its results file lacks", chosen.ID, name)
		}
		if out == nil {
			out = &results.File{Version: results.SchemaVersion, Suite: f.Suite, Environment: f.Environment, Created: f.Created}
		}
		out.Runs = append(out.Runs, *run)
		choices = append(choices, BaselineChoice{Run: name, Chosen: chosen, Among: among})
	}
	if out == nil {
		return nil, nil, nil
	}
	// The runs in the order of the newest entry's plan.
	newest := es[len(es)-1]
	slices.SortStableFunc(out.Runs, func(a, b results.Run) int { return runIndex(newest, a.Name) - runIndex(newest, b.Name) })
	var commits []string
	for _, c := range choices {
		if !slices.Contains(commits, c.Chosen.ShortCommit()) {
			commits = append(commits, c.Chosen.ShortCommit())
		}
	}
	last := choices[0].Chosen
	for _, c := range choices {
		if sortEntriesLess(last, c.Chosen) {
			last = c.Chosen
		}
	}
	out.Environment, out.Created = last.Environment, last.Time
	out.Provenance = &results.Provenance{Source: o.Source, Commit: strings.Join(commits, ","), Image: last.Environment.Image, Promoted: last.Time}
	return out, choices, nil
}

func runIndex(e *Entry, name string) int {
	for i, r := range e.Runs {
		if r.Name == name {
			return i
		}
	}
	return len(e.Runs)
}

func runOf(f *results.File, name string) *results.Run {
	for i := range f.Runs {
		if f.Runs[i].Name == name {
			return &f.Runs[i]
		}
	}
	return nil
}

// medianEntry is the entry whose run's metrics rank nearest the middle of
// among: the smallest sum over metrics of |rank − middle|, the newest on a
// tie (and the newest when no metric is known).
func medianEntry(among []*Entry, run string, metrics []string) *Entry {
	score := make([]float64, len(among))
	for _, m := range metrics {
		idx, vals := []int{}, []float64{}
		for i, e := range among {
			if est, ok := e.Run(run).Estimates[m]; ok {
				idx, vals = append(idx, i), append(vals, est.Value)
			}
		}
		if len(idx) < 2 {
			continue
		}
		order := make([]int, len(idx))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int {
			switch {
			case vals[a] < vals[b]:
				return -1
			case vals[a] > vals[b]:
				return 1
			}
			return 0
		})
		mid := float64(len(idx)-1) / 2
		for rank, j := range order {
			score[idx[j]] += math.Abs(float64(rank) - mid)
		}
	}
	best := len(among) - 1
	for i := len(among) - 1; i >= 0; i-- {
		if score[i] < score[best] {
			best = i
		}
	}
	return among[best]
}
