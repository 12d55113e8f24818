package compare

import (
	"fmt"
	"strings"
)

// Decision is the gate's verdict on a whole comparison. The headline, the
// exit code and the gate's verdict output are all read from it, so they
// cannot disagree.
type Decision string

// Decisions, from the worst down.
const (
	// DecisionFail: a regression, a failed assert, a baseline run the
	// current file lacks (unless narrowed with Config.Only), or an
	// inconclusive change under FailOnInconclusive.
	DecisionFail Decision = "fail"
	// DecisionError: nothing failed, but something was not judged (an
	// invalid, partial or failed current run, a partial current file, an
	// invalid baseline run, or a problem outside the files). Nothing judged
	// is never a pass.
	DecisionError Decision = "error"
	// DecisionInconclusive: everything was judged and nothing failed, but
	// some change could not be called either way.
	DecisionInconclusive Decision = "inconclusive"
	// DecisionPass: everything was judged and nothing got worse.
	DecisionPass Decision = "pass"
)

// NotJudged is something the comparison could not judge, and why.
type NotJudged struct {
	// Run names the run; "" for the whole file or something outside it.
	Run string
	// Kind says what kept it from being judged.
	Kind NotJudgedKind
	// Status is the run's status for CurrentInvalid and BaselineInvalid
	// (results.StatusInvalid, StatusPartial or StatusFailed).
	Status string
	// Reason is the detail, e.g. "achieved rate 7.1/s below planned 10/s".
	Reason string
}

// NotJudgedKind classifies a NotJudged.
type NotJudgedKind string

// Kinds of NotJudged.
const (
	// CurrentInvalid: the current run is invalid, partial or failed.
	CurrentInvalid NotJudgedKind = "current_invalid"
	// BaselineInvalid: the baseline run is invalid, partial or failed.
	BaselineInvalid NotJudgedKind = "baseline_invalid"
	// CurrentPartial: the current file was cut short.
	CurrentPartial NotJudgedKind = "current_partial"
	// RunProblem: a problem outside the files (a target that did not
	// start, an interruption), added by the caller with AddProblem.
	RunProblem NotJudgedKind = "run_problem"
)

// notJudged collects what the files keep from being judged.
func (c *Comparison) notJudged() {
	if c.Current.Partial {
		c.NotJudged = append(c.NotJudged, NotJudged{Kind: CurrentPartial, Reason: "the current results file is partial: the run was cut short"})
	}
	for i := range c.Current.Runs {
		if r := &c.Current.Runs[i]; !r.Valid() {
			c.NotJudged = append(c.NotJudged, NotJudged{Run: r.Name, Kind: CurrentInvalid, Status: r.Status, Reason: "current run is " + r.Status + reasonSuffix(r)})
		}
	}
	if c.Baseline == nil {
		return
	}
	cur := runIndex(c.Current)
	for i := range c.Baseline.Runs {
		r := &c.Baseline.Runs[i]
		if cr := cur[r.Name]; !r.Valid() && cr != nil && cr.Valid() {
			c.NotJudged = append(c.NotJudged, NotJudged{Run: r.Name, Kind: BaselineInvalid, Status: r.Status, Reason: "baseline run is " + r.Status + reasonSuffix(r) + "; promote a new baseline"})
		}
	}
}

// AddProblem records a problem from outside the files that kept the
// comparison from judging everything (the run's error, say); it makes the
// decision DecisionError unless something failed.
func (c *Comparison) AddProblem(err error) {
	c.NotJudged = append(c.NotJudged, NotJudged{Kind: RunProblem, Reason: err.Error()})
}

// MissingRuns names the baseline runs the current file lacks, in baseline
// order. Unless the comparison was narrowed (Config.Only) or the current
// file was cut short, each fails the gate: a run that silently stopped
// running must not pass.
func (c *Comparison) MissingRuns() []string {
	if c.Baseline == nil {
		return nil
	}
	cur := runIndex(c.Current)
	var out []string
	for i := range c.Baseline.Runs {
		if r := &c.Baseline.Runs[i]; cur[r.Name] == nil && !c.Config.skipped(r) {
			out = append(out, r.Name)
		}
	}
	return out
}

// SkippedRuns names the baseline runs left out on purpose by Config.Only.
func (c *Comparison) SkippedRuns() []string {
	if c.Baseline == nil {
		return nil
	}
	cur := runIndex(c.Current)
	var out []string
	for i := range c.Baseline.Runs {
		if r := &c.Baseline.Runs[i]; cur[r.Name] == nil && c.Config.skipped(r) {
			out = append(out, r.Name)
		}
	}
	return out
}

// missingFails reports whether the missing runs fail the gate: they do
// unless the current file was cut short (then they are not judged).
func (c *Comparison) missingFails() bool {
	return len(c.MissingRuns()) > 0 && !c.Current.Partial
}

// Decide is the gate's verdict on the comparison.
func (c *Comparison) Decide() Decision {
	n := c.Counts()
	switch {
	case n.ByVerdict[Regression] > 0 || n.FailedAsserts > 0 || c.missingFails() ||
		(c.Config.FailOnInconclusive && n.ByVerdict[Inconclusive] > 0):
		return DecisionFail
	case len(c.NotJudged) > 0 || (len(c.MissingRuns()) > 0 && c.Current.Partial):
		return DecisionError
	case n.ByVerdict[Inconclusive] > 0:
		return DecisionInconclusive
	}
	return DecisionPass
}

// Failed reports whether the gate fails (Decide is DecisionFail).
func (c *Comparison) Failed() bool { return c.Decide() == DecisionFail }

// NotJudgedSummary says in a phrase what was not judged: "2 runs invalid,
// current results cut short"; "" when everything was judged.
func (c *Comparison) NotJudgedSummary() string {
	var parts []string
	count := map[NotJudgedKind]int{}
	statuses := map[NotJudgedKind]map[string]int{CurrentInvalid: {}, BaselineInvalid: {}}
	for _, nj := range c.NotJudged {
		count[nj.Kind]++
		if st := statuses[nj.Kind]; st != nil {
			st[nj.Status]++
		}
	}
	for _, side := range []struct {
		kind NotJudgedKind
		name string
	}{{CurrentInvalid, "current"}, {BaselineInvalid, "baseline"}} {
		// "2 current runs failed, 1 invalid"
		var byStatus []string
		for _, st := range []string{"failed", "partial", "invalid"} {
			k := statuses[side.kind][st]
			switch {
			case k == 0:
			case len(byStatus) == 0:
				byStatus = append(byStatus, fmt.Sprintf("%d %s %s %s", k, side.name, runs(k), st))
			default:
				byStatus = append(byStatus, fmt.Sprintf("%d %s", k, st))
			}
		}
		if len(byStatus) > 0 {
			parts = append(parts, strings.Join(byStatus, ", "))
		}
	}
	if count[CurrentPartial] > 0 {
		parts = append(parts, "current results cut short")
	}
	if k := count[RunProblem]; k > 0 {
		for _, nj := range c.NotJudged {
			if nj.Kind == RunProblem {
				parts = append(parts, firstLine(nj.Reason))
			}
		}
	}
	if m := c.MissingRuns(); len(m) > 0 && c.Current.Partial {
		parts = append(parts, fmt.Sprintf("%d %s never ran", len(m), runs(len(m))))
	}
	return strings.Join(parts, ", ")
}

func runs(n int) string {
	if n == 1 {
		return "run"
	}
	return "runs"
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}
