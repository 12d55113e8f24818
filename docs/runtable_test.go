package docs_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/internal/report"
	"github.com/llmgate/llmgate/results"
)

// runTableIntro opens the table of docs/running.md that describes the end
// table's columns.
const runTableIntro = "At the end a table shows one row per run:"

// TestRunTableColumnsDescribed checks that every column the end table of
// llmgate run prints (its GPU columns included) is described in
// docs/running.md's table of columns, and that the page describes no column
// the table does not print.
func TestRunTableColumnsDescribed(t *testing.T) {
	f := &results.File{Runs: []results.Run{{
		Name: "chat", Status: results.StatusOK,
		Summary: results.Summary{GPU: &results.GPUMetrics{}},
	}}}
	var out bytes.Buffer
	if err := report.RunTable(&out, f); err != nil {
		t.Fatal(err)
	}
	header, _, _ := strings.Cut(out.String(), "\n")
	printed := regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(header), -1)
	if len(printed) < 10 {
		t.Fatalf("the run table's header %q splits into %d columns", header, len(printed))
	}
	described := describedColumns(t)
	names := keys(described)
	for _, c := range printed {
		if !described[c] {
			t.Errorf("the run table prints column %q, which docs/running.md does not describe (its columns: %v)", c, names)
		}
		delete(described, c)
	}
	for c := range described {
		t.Errorf("docs/running.md describes column %q, which the run table does not print", c)
	}
}

// describedColumns are the column names of running.md's column table: the
// first cell of each row, split at ", " and " / ", backquotes removed.
func describedColumns(t *testing.T) map[string]bool {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(root, "docs", "running.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(src), runTableIntro)
	if !ok {
		t.Fatalf("docs/running.md no longer says %q before its column table", runTableIntro)
	}
	cols := map[string]bool{}
	rows := 0
	for _, line := range strings.Split(strings.TrimLeft(rest, "\n"), "\n") {
		if !strings.HasPrefix(line, "|") {
			break
		}
		rows++
		if rows <= 2 {
			continue // the head and the rule
		}
		cell := strings.TrimSpace(strings.Split(line, "|")[1])
		for _, name := range regexp.MustCompile(`, | / `).Split(cell, -1) {
			cols[strings.Trim(name, "`")] = true
		}
	}
	if len(cols) == 0 {
		t.Fatal("docs/running.md's column table has no rows")
	}
	return cols
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
