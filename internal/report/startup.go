package report

import (
	"strings"

	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/untrusted"
)

// startupHead heads the start-up table: per run, the baseline's and the
// current server's created-to-ready seconds, and the current's phases as
// its log timed them.
var startupHead = []string{"run", "baseline start-up", "start-up", "weights", "torch.compile", "CUDA graphs"}

// startupCells are a run's cells after its name; "-" for what was not timed.
func startupCells(base, cur *results.Startup) []string {
	secs := func(s *results.Startup) string {
		if s == nil {
			return "-"
		}
		return Value(s.Seconds, results.Seconds)
	}
	phase := func(name string) string {
		if v, ok := cur.Phase(name); ok {
			return Value(v, results.Seconds)
		}
		return "-"
	}
	return []string{secs(base), secs(cur), phase(results.PhaseWeights), phase(results.PhaseCompile), phase(results.PhaseGraphs)}
}

// startupSection is the terminal's and the page's start-up table: each
// run's own times, without the baseline's (the PR markdown has both).
var startupSection = runSection{header: append([]string{"run"}, startupHead[2:]...),
	cells: func(r *results.Run) []string {
		if r.Summary.Startup == nil {
			return nil
		}
		return startupCells(nil, r.Summary.Startup)[1:]
	},
	caption: "start-up (server container created to ready; phases as the server's log timed them)"}

// mdStartup is the Markdown table of the current runs' start-up times, with
// the baseline's run of the same name beside them, when a server llmgate
// started drove any current run.
func mdStartup(m *mdBuilder, base, cur *results.File) {
	var rows []string
	for i := range cur.Runs {
		r := &cur.Runs[i]
		if r.Summary.Startup == nil {
			continue
		}
		var b *results.Startup
		if base != nil {
			for j := range base.Runs {
				if base.Runs[j].Name == r.Name {
					b = base.Runs[j].Summary.Startup
					break
				}
			}
		}
		rows = append(rows, "| "+untrusted.Markdown(r.Name)+" | "+strings.Join(startupCells(b, r.Summary.Startup), " | ")+" |")
	}
	if len(rows) == 0 {
		return
	}
	lines := []string{"**Start-up** (server container created to ready; phases as the server's log timed them)", "",
		"| " + strings.Join(startupHead, " | ") + " |", "|---|---:|---:|---:|---:|---:|"}
	m.block(append(append(lines, rows...), "")...)
}
