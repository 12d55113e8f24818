package scenarios

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llmgate/llmgate/internal/runner"
	"github.com/llmgate/llmgate/internal/suite"
	"github.com/llmgate/llmgate/results"
)

// figuresHead heads docs/catalog.md's table of the figures this test
// measures again.
const figuresHead = "| suite | scale | run | metric | the test checks | measured |"

// figure is one row of that table: a metric of one run of a catalog suite
// on the simulator at a scale, within [Low, High] or below the same metric
// of another run of the suite.
type figure struct {
	line              int
	suite, scale, run string
	metric            string
	low, high         float64
	below             string // a run's name; "" for a range
}

func (f figure) String() string {
	return fmt.Sprintf("docs/catalog.md:%d (%s at scale %s: %s of %s)", f.line, f.suite, f.scale, f.metric, f.run)
}

var (
	rangeCell = regexp.MustCompile(`^(-?[0-9.]+) to (-?[0-9.]+)$`)
	belowCell = regexp.MustCompile("^below `([^`]+)`'s$")
)

// catalogFigures parses the table of figures docs/catalog.md states.
func catalogFigures(t *testing.T) []figure {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "docs", "catalog.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")
	start := -1
	for i, l := range lines {
		if strings.TrimSpace(l) == figuresHead {
			start = i + 2 // past the rule
		}
	}
	if start < 0 {
		t.Fatalf("docs/catalog.md has no table headed %q", figuresHead)
	}
	var out []figure
	for i := start; i < len(lines) && strings.HasPrefix(lines[i], "|"); i++ {
		cells := strings.Split(strings.Trim(lines[i], "|"), "|")
		if len(cells) != 6 {
			t.Fatalf("docs/catalog.md:%d: %d cells, want 6", i+1, len(cells))
		}
		for k := range cells {
			cells[k] = strings.TrimSpace(cells[k])
		}
		unquote := func(s string) string { return strings.Trim(s, "`") }
		f := figure{line: i + 1, suite: unquote(cells[0]), scale: cells[1], run: unquote(cells[2]), metric: unquote(cells[3])}
		if m := rangeCell.FindStringSubmatch(cells[4]); m != nil {
			f.low, _ = strconv.ParseFloat(m[1], 64)
			f.high, _ = strconv.ParseFloat(m[2], 64)
		} else if m := belowCell.FindStringSubmatch(cells[4]); m != nil {
			f.below = m[1]
		} else {
			t.Fatalf("docs/catalog.md:%d: %q is neither \"LOW to HIGH\" nor \"below `RUN`'s\"", i+1, cells[4])
		}
		if _, ok := results.LookupMetric(f.metric); !ok {
			t.Fatalf("%s: no metric %q", f, f.metric)
		}
		out = append(out, f)
	}
	if len(out) == 0 {
		t.Fatal("docs/catalog.md's table of figures has no rows")
	}
	return out
}

// TestCatalogFiguresParse checks that the table parses and names suites of
// the catalog, without running them.
func TestCatalogFiguresParse(t *testing.T) {
	known := map[string]bool{}
	for _, c := range catalog {
		known[c.file] = true
	}
	for _, f := range catalogFigures(t) {
		if !known[f.suite] {
			t.Errorf("%s: not a catalog suite", f)
		}
	}
}

// TestCatalogFigures runs each suite docs/catalog.md states figures of, on
// the simulator at the scale the page states, and checks every figure: the
// page's figures are the ones this run measures.
func TestCatalogFigures(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the catalog suites whose figures docs/catalog.md states, in real time (about a minute): full run only")
	}
	type key struct{ suite, scale string }
	var order []key
	bySuite := map[key][]figure{}
	for _, f := range catalogFigures(t) {
		k := key{f.suite, f.scale}
		if _, ok := bySuite[k]; !ok {
			order = append(order, k)
		}
		bySuite[k] = append(bySuite[k], f)
	}
	for _, k := range order {
		s, diags := suite.Load(k.suite, suite.Options{
			Vars:   map[string]string{"simulate": "true", "scale": k.scale},
			Getenv: func(string) string { return "" },
		})
		if diags.HasErrors() {
			t.Fatalf("%s: %v", k.suite, diags)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		file, err := runner.Run(ctx, s.Runnable(), runner.Options{OutputPath: filepath.Join(t.TempDir(), "results.json")})
		cancel()
		if err != nil {
			t.Fatalf("%s: run: %v", k.suite, err)
		}
		values := map[string]map[string]float64{}
		for i := range file.Runs {
			r := &file.Runs[i]
			if r.Status == results.StatusInvalid {
				t.Logf("%s: run %s: the load generator marked it invalid: %s", k.suite, r.Name, strings.Join(r.InvalidReasons, "; "))
			}
			values[r.Name] = r.Summary.Values()
		}
		for _, f := range bySuite[k] {
			got, ok := values[f.run][f.metric]
			if !ok {
				t.Errorf("%s: not measured (runs: %d)", f, len(file.Runs))
				continue
			}
			if f.below != "" {
				other, ok := values[f.below][f.metric]
				if !ok || got >= other {
					t.Errorf("%s = %g, not below %s's %g", f, got, f.below, other)
				} else {
					t.Logf("%s = %g, below %s's %g", f, got, f.below, other)
				}
				continue
			}
			if got < f.low || got > f.high {
				t.Errorf("%s = %g, outside the stated %g to %g", f, got, f.low, f.high)
			} else {
				t.Logf("%s = %g, within %g to %g", f, got, f.low, f.high)
			}
		}
	}
}
