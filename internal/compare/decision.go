package compare

import (
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/untrusted"
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
	Status results.Status
	// Reason is the detail, e.g. "achieved rate 7.1/s below planned 10/s";
	// it may quote a server or a results file.
	Reason untrusted.String
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
	// BucketsDiffer: a tolerance names an input-length bucket whose edges
	// differ between the baseline and the current run.
	BucketsDiffer NotJudgedKind = "buckets_differ"
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
			c.NotJudged = append(c.NotJudged, NotJudged{Run: r.Name, Kind: CurrentInvalid, Status: r.Status, Reason: untrusted.String("current run is "+string(r.Status)) + reasonSuffix(r)})
		}
	}
	if c.Baseline == nil {
		return
	}
	cur := runIndex(c.Current)
	for i := range c.Baseline.Runs {
		r := &c.Baseline.Runs[i]
		if cr := cur[r.Name]; !r.Valid() && cr != nil && cr.Valid() {
			c.NotJudged = append(c.NotJudged, NotJudged{Run: r.Name, Kind: BaselineInvalid, Status: r.Status, Reason: untrusted.String("baseline run is "+string(r.Status)) + reasonSuffix(r) + "; promote a new baseline"})
		}
	}
}

// AddProblem records a problem from outside the files that kept the
// comparison from judging everything (the run's error, say); it makes the
// decision DecisionError unless something failed.
func (c *Comparison) AddProblem(err error) {
	c.NotJudged = append(c.NotJudged, NotJudged{Kind: RunProblem, Reason: untrusted.String(err.Error())})
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
	return len(c.MissingRuns()) > 0 && len(c.RunsNeverRan()) == 0
}

// Decide is the gate's verdict on the comparison.
func (c *Comparison) Decide() Decision {
	n := c.Counts()
	switch {
	case n.ByVerdict[Regression] > 0 || n.FailedAsserts > 0 || c.missingFails() ||
		(c.Config.FailOnInconclusive && n.ByVerdict[Inconclusive] > 0):
		return DecisionFail
	case len(c.NotJudged) > 0 || len(c.RunsNeverRan()) > 0:
		return DecisionError
	case n.ByVerdict[Inconclusive] > 0:
		return DecisionInconclusive
	}
	return DecisionPass
}

// Failed reports whether the gate fails (Decide is DecisionFail).
func (c *Comparison) Failed() bool { return c.Decide() == DecisionFail }

// RunsNeverRan names the baseline runs the current file lacks because it was
// cut short: not judged rather than missing.
func (c *Comparison) RunsNeverRan() []string {
	if c.Current == nil || !c.Current.Partial {
		return nil
	}
	return c.MissingRuns()
}
