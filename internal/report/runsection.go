package report

import (
	"strings"

	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/untrusted"
)

// runSection is a table under the run table of the runs that have one
// kind of figure (reasoning, the server's latency split, ...): a row of
// cells after each such run's name, the cells nil for a run without it.
type runSection struct {
	header []string
	cells  func(*results.Run) []string
	// caption heads the terminal's table ("caption:"), title the
	// Markdown's (a line of its own).
	caption, title string
}

// write adds the section's table of f's runs to b, or nothing when no
// run has the figures.
func (s runSection) write(b *strings.Builder, f *results.File) {
	t := &table{}
	for _, row := range s.rows(f) {
		t.add(row...)
	}
	if len(t.rows) == 0 {
		return
	}
	t.rows = append([][]string{s.header}, t.rows...)
	b.WriteString("\n" + s.caption + ":\n")
	_ = t.write(b) // a strings.Builder does not fail
}

// rows are the section's rows of f's runs: each run's name, then its cells.
func (s runSection) rows(f *results.File) [][]string {
	var rows [][]string
	for i := range f.Runs {
		if cells := s.cells(&f.Runs[i]); cells != nil {
			rows = append(rows, append([]string{f.Runs[i].Name}, cells...))
		}
	}
	return rows
}

// html is the section's table for the page, nil when no run has the figures.
func (s runSection) html(f *results.File) *htmlTable {
	rows := s.rows(f)
	if len(rows) == 0 {
		return nil
	}
	return &htmlTable{Head: s.header, Rows: lines(rows), Text: map[int]bool{0: true}}
}

// markdown adds the section's table of cur's runs to m, or nothing when
// no run has the figures.
func (s runSection) markdown(m *mdBuilder, cur *results.File) {
	var rows []string
	for i := range cur.Runs {
		r := &cur.Runs[i]
		if cells := s.cells(r); cells != nil {
			rows = append(rows, "| "+untrusted.Markdown(r.Name)+" | "+strings.Join(cells, " | ")+" |")
		}
	}
	if len(rows) == 0 {
		return
	}
	lines := append([]string{s.title, "", "| " + strings.Join(s.header, " | ") + " |", "|---|" + strings.Repeat("---:|", len(s.header)-1)}, rows...)
	m.block(append(lines, "")...)
}
