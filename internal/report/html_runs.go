package report

import (
	"github.com/llmgate/llmgate/internal/diagnose"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/untrusted"
)

// htmlTable is a table for the page's template: heads, rows of cells,
// and which columns are text (left-aligned); the others are numbers.
type htmlTable struct {
	Head []string
	Rows [][]string
	Text map[int]bool
}

// htmlCapacity is a capacity search: its line and its probes.
type htmlCapacity struct {
	Run, Line string
	Probes    htmlTable
}

// htmlRuns is the page's Runs section: what the terminal writes under
// RunTable, as HTML tables and lists that wrap to the window.
type htmlRuns struct {
	Table    htmlTable
	Capacity []htmlCapacity
	Slices   *htmlTable
	// SlicesTitle heads the Slices table (slicesTitle).
	SlicesTitle string
	// Startup is the runs' start-up times; nil when no server was started.
	// SpecDecode and ToolCalls are the server's speculative decoding and
	// the runs' tool calls; nil when no run has them.
	Startup, SpecDecode, ToolCalls *htmlTable
	// Shortfalls, GPUFailures, Knees and Hints are one line each.
	Shortfalls, GPUFailures, Knees, Hints []string
}

// runsSection gathers f's Runs section. Its strings are outside text;
// the template escapes them, and each is made one line.
func runsSection(f *results.File) htmlRuns {
	var s htmlRuns
	head, rows := runTable(f)
	s.Table = htmlTable{Head: head, Rows: lines(rows), Text: map[int]bool{0: true, 1: true}}
	for _, r := range capacityRuns(f) {
		ph, pr := probeTable(r.Capacity)
		s.Capacity = append(s.Capacity, htmlCapacity{Run: untrusted.Line(r.Name), Line: CapacityLine(r.Capacity),
			Probes: htmlTable{Head: ph, Rows: lines(pr), Text: map[int]bool{2: true, 3: true}}})
	}
	s.Shortfalls = shortfalls(f) // ShortfallLine makes each one line
	if rows := sliceRows(f); len(rows) > 0 {
		s.Slices = &htmlTable{Head: sliceHeader, Rows: lines(rows), Text: map[int]bool{0: true, 1: true}}
		s.SlicesTitle = slicesTitle(f)
	}
	s.Startup = startupSection.html(f)
	s.SpecDecode = specSection.html(f)
	s.ToolCalls = toolSection.html(f)
	for _, l := range gpuFailures(f) {
		s.GPUFailures = append(s.GPUFailures, untrusted.Line(l))
	}
	for _, k := range diagnose.Knees(f) {
		s.Knees = append(s.Knees, untrusted.Line(KneeLine(k)))
	}
	for _, h := range diagnose.File(f) {
		s.Hints = append(s.Hints, untrusted.Line(HintLine(h)))
	}
	return s
}

// lines makes every cell one safe line (untrusted.Line), as the
// terminal's table does.
func lines(rows [][]string) [][]string {
	for _, r := range rows {
		for i, c := range r {
			r[i] = untrusted.Line(c)
		}
	}
	return rows
}
