package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/internal/words"
	"github.com/llmgate/llmgate/untrusted"
)

// TerminalOptions tune Terminal.
type TerminalOptions struct {
	// Wide adds each row's estimator, the spread of both values and the
	// evidence (test, p-value, sample sizes, interval): about 170 columns
	// where the default table fits in MaxTerminalWidth.
	Wide bool
}

// MaxTerminalWidth is the widest line of the default comparison table for
// run and metric names of usual length: it fits a terminal of 100 columns.
const MaxTerminalWidth = 100

// Terminal writes a benchstat-like comparison: per run and metric the
// baseline and current values, the change ("~" when its test found it not
// significant), the band and the verdict, within MaxTerminalWidth columns;
// opts.Wide adds the estimator, spreads and evidence of each row. Then
// the reasons of rows not measured, failed asserts, environment
// differences, warnings and a one-line summary.
func Terminal(w io.Writer, c *compare.Comparison, opts TerminalOptions) error {
	alpha := alphaOf(c)
	var t *table
	if opts.Wide {
		t = &table{left: map[int]bool{1: true, 6: true}}
		t.add("run / metric", "estimator", "baseline", "current", "change", "band", "verdict")
	} else {
		t = &table{left: map[int]bool{5: true}}
		t.add("run / metric", "baseline", "current", "change", "band", "verdict")
	}
	run := ""
	for i := range c.Rows {
		r := &c.Rows[i]
		if r.Run != run {
			run = r.Run
			t.span(run)
		}
		u := r.Metric.Unit
		name := "  " + r.Metric.Name + rowMark(r)
		if opts.Wide {
			t.add(name, estimatorCell(r), valueCell(r.Baseline, r.BaselineLo, r.BaselineHi, u), currentCell(r),
				deltaCell(r, alpha), Band(r.Tolerance, u), verdictCell(r))
			continue
		}
		t.add(name, Value(r.Baseline, u), narrowCurrentCell(r), narrowDeltaCell(r, alpha), Band(r.Tolerance, u), narrowVerdictCell(r))
	}
	var b strings.Builder
	if err := t.write(&b); err != nil {
		return err
	}
	for _, n := range importedNotes(c) {
		b.WriteString(n + "\n")
	}
	if !opts.Wide {
		writeNotMeasured(&b, c)
		if len(c.Rows) > 0 {
			b.WriteString("(estimators, spreads, tests and intervals: --wide, or the markdown and HTML reports)\n")
		}
	}
	if len(c.FailedAsserts) > 0 {
		b.WriteString("\nfailed asserts:\n")
		for _, f := range c.FailedAsserts {
			fmt.Fprintf(&b, "  %s: %s: %s", untrusted.Line(f.Run), untrusted.Line(f.Assert.Name), f.Assert.Condition)
			if f.Assert.Message != "" {
				fmt.Fprintf(&b, " — %s", f.Assert.Message)
			}
			b.WriteByte('\n')
		}
	}
	if bad := invalidRuns(c); len(bad) > 0 {
		b.WriteString("\nnot judged:\n")
		for _, n := range bad {
			fmt.Fprintf(&b, "  %s: %s\n", untrusted.Line(n.Run), n.Reason)
		}
	}
	if c.Current != nil {
		if m := MissingText(c.Current); m != "" {
			b.WriteString("\n" + m)
		}
	}
	if ws := warnings(c); len(ws) > 0 {
		b.WriteString("\nwarnings:\n")
		for _, w := range ws {
			fmt.Fprintf(&b, "  %s\n", untrusted.Line(w)) // may quote the server
		}
	}
	fmt.Fprintf(&b, "\n%s\n", Headline(c))
	if runs := c.RerunRuns(); len(runs) > 0 {
		fmt.Fprintf(&b, "rerun to confirm: %s\n", untrusted.Line(strings.Join(runs, ", ")))
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("writing comparison: %w", err)
	}
	return nil
}

// Headline is the one-line verdict, read from the comparison's Decide so
// that it always agrees with the exit code: "❌ 2 regressions in 14
// metrics", "⛔ not judged: 1 current run not valid", "✅ no regression in 14
// metrics", with what else happened in parentheses. Without a baseline it
// says plainly that no regression was checked.
func Headline(c *compare.Comparison) string {
	return verdictMark(c.Decide()) + " " + headlineText(c)
}

// headlineText is the headline without its mark, for a page that draws
// the mark itself.
func headlineText(c *compare.Comparison) string {
	h := headline(c)
	if c.InOneJob() {
		h += " " + ABPhrase
	}
	return h
}

// verdictMark is the headline's mark of a decision: ❌ failed, ⛔ not
// judged, ✅ otherwise.
func verdictMark(d compare.Decision) string {
	switch d {
	case compare.DecisionFail:
		return "❌"
	case compare.DecisionError:
		return "⛔"
	}
	return "✅"
}

// ABPhrase marks every report of an A/B comparison.
const ABPhrase = "(A/B in one job)"

func headline(c *compare.Comparison) string {
	n := c.Counts()
	var bad, notes []string
	if k := n.ByVerdict[compare.Regression]; k > 0 {
		bad = append(bad, words.Count(k, "regression", "regressions"))
	}
	if n.FailedAsserts > 0 {
		bad = append(bad, words.Count(n.FailedAsserts, "failed assert", "failed asserts"))
	}
	if m := c.MissingRuns(); len(m) > 0 && len(c.RunsNeverRan()) == 0 {
		bad = append(bad, words.Count(len(m), "baseline run missing", "baseline runs missing"))
	}
	if k := n.ByVerdict[compare.Inconclusive]; k > 0 {
		if c.Config.FailOnInconclusive {
			bad = append(bad, words.Count(k, "inconclusive", "inconclusive"))
		} else {
			notes = append(notes, words.Count(k, "inconclusive", "inconclusive"))
		}
	}
	for _, v := range []compare.Verdict{compare.Invalid, compare.Missing, compare.New, compare.NotMeasured, compare.Improvement} {
		if k := n.ByVerdict[v]; k > 0 {
			notes = append(notes, fmt.Sprintf("%d %s", k, v))
		}
	}
	if k := len(c.SkippedRuns()); k > 0 {
		notes = append(notes, fmt.Sprintf("narrowed with --only: %s not run", words.Count(k, "baseline run", "baseline runs")))
	}
	metrics := words.Count(n.Metrics, "metric", "metrics")
	var s string
	switch c.Decide() {
	case compare.DecisionFail:
		s = strings.Join(bad, ", ") + " in " + metrics
		if c.Baseline == nil {
			s = strings.Join(bad, ", ") + " (no baseline, so no regression was checked)"
		}
		if nj := notJudgedPhrase(c); nj != "" {
			notes = append([]string{"not judged: " + nj}, notes...)
		}
	case compare.DecisionError:
		s = "not judged: " + notJudgedPhrase(c)
		if c.Baseline == nil {
			s += " (no baseline, so no regression was checked)"
		}
	default:
		if c.Baseline == nil {
			return "every assert passed (no baseline, so no regression was checked)"
		}
		s = "no regression in " + metrics
	}
	if len(notes) > 0 {
		s += " (" + strings.Join(notes, ", ") + ")"
	}
	return s
}

// narrowCurrentCell is the current value; "(mean)" marks the mean of the
// two runs that decided a row.
func narrowCurrentCell(r *compare.Row) string {
	if r.Confirm != nil {
		return Value(Current(r), r.Metric.Unit) + " (mean)"
	}
	return Value(r.Current, r.Metric.Unit)
}

// narrowDeltaCell is the change, "~" marking it not significant (the
// others keep its room, so the changes align); "-" on a row with no
// change (the verdict says why).
func narrowDeltaCell(r *compare.Row, alpha float64) string {
	switch r.Verdict {
	case compare.New, compare.Missing, compare.Invalid, compare.NotMeasured:
		return "-  "
	}
	if r.Tested() && !r.Significant(alpha) {
		return Change(r) + " ~"
	}
	return Change(r) + "  "
}

// narrowVerdictCell is verdictCell in fewer words.
func narrowVerdictCell(r *compare.Row) string {
	s := string(r.Verdict)
	switch {
	case r.Rerun:
		s += " (rerun)"
	case r.Confirm != nil:
		s += " (2 runs)"
	}
	if r.SignificantInBand {
		s += " (significant, in band)"
	}
	return s
}

// writeNotMeasured lists why each row not measured was not, which the
// default table has no room for.
func writeNotMeasured(b *strings.Builder, c *compare.Comparison) {
	first := true
	for i := range c.Rows {
		r := &c.Rows[i]
		if r.Verdict != compare.NotMeasured {
			continue
		}
		if first {
			b.WriteString("\nnot measured:\n")
			first = false
		}
		fmt.Fprintf(b, "  %s %s: %s\n", untrusted.Line(r.Run), untrusted.Line(r.Metric.Name), r.Reason.Line())
	}
}
