package report

import (
	"fmt"
	"math"

	"github.com/llmgate/llmgate/compare"
	"github.com/llmgate/llmgate/results"
)

// fmtValue formats a metric value in its unit; "-" when absent.
func fmtValue(v float64, u results.Unit) string {
	if math.IsNaN(v) {
		return "-"
	}
	switch u {
	case results.Milliseconds:
		return fmtMs(v)
	case results.PerSecond:
		return fmtNum(v) + "/s"
	case results.Ratio:
		return fmtNum(v)
	default:
		return fmtNum(v)
	}
}

// spread is "± 4%" from a row's confidence interval, or "" when unknown.
func spread(v, lo, hi float64) string {
	if math.IsNaN(lo) || math.IsNaN(hi) || v == 0 || math.IsNaN(v) {
		return ""
	}
	return fmt.Sprintf("± %.0f%%", 100*math.Max(hi-v, v-lo)/math.Abs(v))
}

// rawChange is the row's change as it reads on the values (+ = went up),
// undoing compare's worse-is-positive sign.
func rawChange(r *compare.Row) float64 {
	if r.Better == results.HigherIsBetter {
		return -r.Change
	}
	return r.Change
}

// fmtChange formats a relative change as "+12.3%".
func fmtChange(v float64) string {
	if math.IsInf(v, 0) {
		return fmt.Sprintf("%+.0f", v)
	}
	return fmt.Sprintf("%+.1f%%", 100*v)
}

// fmtP is "p=0.003 n=200+200", or "n/a" when no test was made.
func fmtP(r *compare.Row) string {
	if !r.Tested() {
		return "no samples"
	}
	if r.P < 0.001 {
		return fmt.Sprintf("p<0.001 n=%d+%d", r.N1, r.N2)
	}
	return fmt.Sprintf("p=%.3f n=%d+%d", r.P, r.N1, r.N2)
}

// deltaCell is benchstat's delta column: the change, or "~" when not significant.
func deltaCell(r *compare.Row, alpha float64) string {
	switch r.Verdict {
	case compare.New, compare.Missing, compare.Invalid:
		return string(r.Verdict)
	}
	if r.Tested() && !r.Significant(alpha) {
		return "~ (" + fmtP(r) + ")"
	}
	return fmtChange(rawChange(r)) + " (" + fmtP(r) + ")"
}

// verdictCell names the verdict, noting a rerun request or a confirming run.
func verdictCell(r *compare.Row) string {
	s := string(r.Verdict)
	switch {
	case r.Rerun:
		s += " (rerun to confirm)"
	case r.Confirm != nil:
		s += " (2 runs)"
	}
	return s
}

// bandText is "10%" or "+200ms".
func bandText(t compare.Tolerance, u results.Unit) string {
	if t.Relative {
		return fmt.Sprintf("%g%%", 100*t.Amount)
	}
	return "+" + fmtValue(t.Amount, u)
}

// notJudged is one run (or the whole file, Run "") the comparison could
// not judge, and why.
type notJudged struct{ Run, Reason string }

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

func alphaOf(c *compare.Comparison) float64 {
	if c.Config.Alpha > 0 {
		return c.Config.Alpha
	}
	return compare.DefaultAlpha
}
