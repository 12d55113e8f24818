package report

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/llmgate/llmgate/untrusted"
)

// table is a text table with per-column alignment: the first column is
// left-aligned, the others right-aligned unless left says otherwise. Cells
// hold run names and a results file's words, so each is made one safe line
// (untrusted.Line) as it is added: the table is a terminal sink.
type table struct {
	rows [][]string
	left map[int]bool
	// spans marks the rows written as one line across the columns (a
	// run's name over its metrics), which widen no column.
	spans map[int]bool
}

// span adds a row of one cell written as it is, across the columns.
func (t *table) span(cell string) {
	if t.spans == nil {
		t.spans = map[int]bool{}
	}
	t.spans[len(t.rows)] = true
	t.add(cell)
}

func (t *table) add(cells ...string) {
	row := make([]string, len(cells))
	for i, c := range cells {
		row[i] = untrusted.Line(c)
	}
	t.rows = append(t.rows, row)
}

// write pads every cell to its column's width, separating columns by two spaces.
func (t *table) write(w io.Writer) error {
	var widths []int
	for k, r := range t.rows {
		if t.spans[k] {
			continue
		}
		for i, c := range r {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	var b strings.Builder
	for k, r := range t.rows {
		if t.spans[k] {
			b.WriteString(strings.TrimRight(r[0], " ") + "\n")
			continue
		}
		var line strings.Builder
		for i, c := range r {
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			if i > 0 {
				line.WriteString("  ")
			}
			if i == 0 || t.left[i] {
				line.WriteString(c + pad)
			} else {
				line.WriteString(pad + c)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteByte('\n')
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("writing table: %w", err)
	}
	return nil
}
