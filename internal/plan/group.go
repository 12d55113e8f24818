package plan

import (
	"fmt"
	"sort"
	"strings"

	"github.com/llmgate/llmgate/runspec"
)

// Plan returns the suite's runs grouped by server: runs that share a target
// and server args are adjacent and share one server start, so each distinct
// server config starts once. Groups come in order of their first run in the
// file, and runs keep file order within a group.
func (s *Suite) Plan() *Plan {
	p := &Plan{}
	index := map[string]*Group{}
	for _, r := range s.Runs {
		key := groupKey(r)
		g := index[key]
		if g == nil {
			g = &Group{Target: r.Target, ServerArgs: r.ServerArgs}
			index[key] = g
			p.Groups = append(p.Groups, g)
		}
		g.Runs = append(g.Runs, r)
	}
	return p
}

func groupKey(r *Run) string {
	ref := ""
	if r.Target != nil {
		ref = r.Target.Ref()
	}
	return ref + "\x00" + strings.Join(r.ServerArgs, "\x00")
}

// Filter returns a plan with only the runs whose name or scenario matches
// one of only; a pattern may use * as a wildcard ("concurrency_sweep[*"). An
// empty only keeps everything. A pattern that matches nothing is an error
// listing the run names, so a typo in --only does not run an empty plan.
func (p *Plan) Filter(only []string) (*Plan, error) {
	if len(only) == 0 {
		return p, nil
	}
	matched := make([]bool, len(only))
	out := &Plan{}
	for _, g := range p.Groups {
		ng := &Group{Target: g.Target, ServerArgs: g.ServerArgs}
		for _, r := range g.Runs {
			keep := false
			for i, pat := range only {
				if runspec.Selects(pat, r.Name, r.Scenario) {
					matched[i], keep = true, true
				}
			}
			if keep {
				ng.Runs = append(ng.Runs, r)
			}
		}
		if len(ng.Runs) > 0 {
			out.Groups = append(out.Groups, ng)
		}
	}
	var missing []string
	for i, ok := range matched {
		if !ok {
			missing = append(missing, fmt.Sprintf("%q", only[i]))
		}
	}
	if len(missing) > 0 {
		var names []string
		seen := map[string]bool{}
		for _, r := range p.Runs() {
			for _, n := range []string{r.Scenario, r.Name} {
				if !seen[n] {
					seen[n] = true
					names = append(names, n)
				}
			}
		}
		sort.Strings(names)
		return nil, fmt.Errorf("no run or scenario matches %s; the suite has: %s", strings.Join(missing, ", "), strings.Join(names, ", "))
	}
	return out, nil
}
