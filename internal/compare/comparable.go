package compare

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/llmgate/llmgate/results"
)

// ErrNotComparable is wrapped by CheckComparable's error: the baseline
// measured something else, so judging against it would be meaningless.
var ErrNotComparable = errors.New("baseline not comparable")

// CheckComparable refuses a baseline that measured something other than
// cur: another suite, or runs of the same name whose workload or load
// differ (another scenario, other sweep values, or another load or
// workload as each run records it: concurrency, rate, burstiness, ramp,
// requests, duration, workload kind and lengths, endpoint, dataset filter;
// see loadFacets). Each difference names both sides. It is the one place where
// comparability of plans is decided; runs present on one side only are not
// its business (Compare calls them new or missing). Files that do not name
// their suite (built by hand) pass the suite check.
func CheckComparable(base, cur *results.File) error {
	var diffs []string
	if b, c := base.Suite.Name, cur.Suite.Name; b != "" && c != "" && b != c {
		diffs = append(diffs, fmt.Sprintf("the baseline is of suite %q, the current results of suite %q", b, c))
	}
	cr := runIndex(cur)
	for i := range base.Runs {
		br := &base.Runs[i]
		r := cr[br.Name]
		if r == nil {
			continue
		}
		if d := planDiff(br, r); d != "" {
			diffs = append(diffs, "run "+br.Name+": "+d)
		}
	}
	if len(diffs) == 0 {
		return nil
	}
	const show = 5
	more := ""
	if len(diffs) > show {
		more = fmt.Sprintf("; and %d more", len(diffs)-show)
		diffs = diffs[:show]
	}
	return fmt.Errorf("%w: %s%s", ErrNotComparable, strings.Join(diffs, "; "), more)
}

// planDiff says how two runs of one name differ in what they asked of the
// server; "" when they do not.
func planDiff(base, cur *results.Run) string {
	var d []string
	if base.Scenario != cur.Scenario {
		d = append(d, fmt.Sprintf("scenario %q in the baseline, %q now", base.Scenario, cur.Scenario))
	}
	if !maps.Equal(base.Params, cur.Params) {
		d = append(d, fmt.Sprintf("sweep values %s in the baseline, %s now", paramText(base.Params), paramText(cur.Params)))
	}
	d = append(d, loadDiff(base.Load, cur.Load)...)
	return strings.Join(d, ", ")
}

func paramText(p map[string]string) string {
	if len(p) == 0 {
		return "none"
	}
	keys := slices.Collect(maps.Keys(p))
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + p[k]
	}
	return strings.Join(parts, ",")
}
