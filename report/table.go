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
	for _, r := range t.rows {
		for i, c := range r {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	var b strings.Builder
	for _, r := range t.rows {
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
