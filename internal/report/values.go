package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/untrusted"
)

// Value formats a metric value in its unit ("52.1ms", "1000/s", "0.950",
// "16" requests); "-" when absent. It is the one formatter of metric
// values (results.Unit.Format): terminal, markdown, HTML and GitHub
// annotations all use it.
func Value(v float64, u results.Unit) string { return u.Format(v) }

// spread is "± 4%" from a row's confidence interval, or "" when unknown.
func spread(v, lo, hi float64) string {
	if math.IsNaN(lo) || math.IsNaN(hi) || v == 0 || math.IsNaN(v) {
		return ""
	}
	return fmt.Sprintf("± %.0f%%", 100*math.Max(hi-v, v-lo)/math.Abs(v))
}

// valueCell is a side's value with the spread of its confidence interval.
func valueCell(v, lo, hi float64, u results.Unit) string {
	return strings.TrimSpace(Value(v, u) + " " + spread(v, lo, hi))
}

// Current is the current value a row's verdict rests on: the run's
// estimate or, for a row decided over two runs (compare.Confirm), the mean
// of both runs' estimates. Both runs are judged against the one baseline,
// so the mean change that decided is this mean's change: the row reads
// baseline → Current, Change and the three agree.
func Current(r *compare.Row) float64 {
	if r.Confirm == nil {
		return r.Current
	}
	return (r.Current + r.Confirm.Current) / 2
}

// currentCell is the current value: with the spread of its interval for
// one run, as the mean of both runs' values for a row decided over two
// ("49.4ms (mean of 60.8ms, 38.1ms)").
func currentCell(r *compare.Row) string {
	u := r.Metric.Unit
	if r.Confirm == nil {
		return valueCell(r.Current, r.CurrentLo, r.CurrentHi, u)
	}
	return Value(Current(r), u) + " (mean of " + Value(r.Current, u) + ", " + Value(r.Confirm.Current, u) + ")"
}

// rawChange is the row's change as it reads on the values (+ = went up),
// undoing compare's worse-is-positive sign: throughput 1000 → 800/s is
// -20%, whichever way is better.
func rawChange(r *compare.Row) float64 {
	return r.Metric.Better.WorseSign() * r.Change
}

// Change formats a row's measured change as the values moved: "+12.3%",
// "-20.0%" for throughput falling from 1000 to 800/s. It is the one
// formatter of changes: terminal, markdown, HTML and annotations use it.
func Change(r *compare.Row) string {
	return fmtChange(rawChange(r))
}

// fmtChange formats a relative change as "+12.3%".
func fmtChange(v float64) string {
	switch {
	case math.IsNaN(v):
		return "-"
	case math.IsInf(v, 0):
		return fmt.Sprintf("%+.0f", v)
	}
	return fmt.Sprintf("%+.1f%%", 100*v)
}

// Band formats a tolerance band: "10%" or "+200ms". It is the one
// formatter of bands.
func Band(t compare.Tolerance, u results.Unit) string {
	if t.Relative {
		return fmt.Sprintf("%g%%", 100*t.Amount)
	}
	return "+" + Value(t.Amount, u)
}

// Interval formats the 95% confidence interval of a row's change as the
// values moved, "[+25.0%, +37.1%]"; "" when there is none.
func Interval(r *compare.Row) string {
	lo, hi := r.ChangeLo, r.ChangeHi
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return ""
	}
	if r.Metric.Better.WorseSign() < 0 {
		lo, hi = -hi, -lo
	}
	return "[" + fmtChange(lo) + ", " + fmtChange(hi) + "]"
}

// deltaCell is the change column: the measured change always, marked "~"
// when its test found it not significant, with the evidence.
func deltaCell(r *compare.Row, alpha float64) string {
	switch r.Verdict {
	case compare.New, compare.Missing, compare.Invalid:
		return string(r.Verdict)
	case compare.NotMeasured:
		return r.Reason.Line()
	}
	mark := ""
	if r.Tested() && !r.Significant(alpha) {
		mark = " ~"
	}
	return Change(r) + mark + " (" + Evidence(r) + ")"
}

// estimatorCell names how a row's values were estimated; "-" on rows
// that were not measured (new, missing, invalid, not measured).
func estimatorCell(r *compare.Row) string {
	switch r.Verdict {
	case compare.New, compare.Missing, compare.Invalid, compare.NotMeasured:
		return "-"
	}
	return r.Estimator.String()
}

// verdictCell names the verdict, noting a rerun request, a confirming run
// and a significant change the band allows.
func verdictCell(r *compare.Row) string {
	s := string(r.Verdict)
	switch {
	case r.Rerun:
		s += " (rerun to confirm)"
	case r.Confirm != nil:
		s += " (2 runs)"
	}
	if r.SignificantInBand {
		s += " (significant, within the band)"
	}
	return s
}

// notJudged is one run (or the whole file, Run "") the comparison could
// not judge, and why.
type notJudged struct {
	Run    string
	Reason untrusted.String
}

// invalidRuns lists what the comparison could not judge, with compare's
// reason ("current run is invalid: achieved rate 7.1/s below planned
// 10/s"), then the baseline runs the current file lacks, so a reader sees
// what to fix.
func invalidRuns(c *compare.Comparison) []notJudged {
	var out []notJudged
	for _, nj := range c.NotJudged {
		run := nj.Run
		if run == "" {
			run = "results"
		}
		out = append(out, notJudged{Run: run, Reason: nj.Reason})
	}
	for _, name := range c.MissingRuns() {
		out = append(out, notJudged{Run: name, Reason: "in the baseline but not in the current results; it fails the gate unless the run was narrowed with --only"})
	}
	return out
}

// warnings are the comparison's warnings and its rows' (compare.AllWarnings),
// each text once: a confirming rerun measures its runs again, and the same
// warning about them (too few samples) came twice.
func warnings(c *compare.Comparison) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range c.AllWarnings() {
		if s := w.Error(); !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func alphaOf(c *compare.Comparison) float64 {
	if c.Config.Alpha > 0 {
		return c.Config.Alpha
	}
	return compare.DefaultAlpha
}
