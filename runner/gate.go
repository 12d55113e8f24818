package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/llmgate/llmgate/compare"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/suite"
)

// GateVerdict is a gate's decision, as the verdict output says it.
type GateVerdict string

// Gate verdicts.
const (
	GatePass         GateVerdict = "pass"         // every assert held, nothing regressed
	GateFail         GateVerdict = "fail"         // an assert failed or a metric regressed
	GateInconclusive GateVerdict = "inconclusive" // passed, with changes the runs could not call
	GateError        GateVerdict = "error"        // the suite could not be judged: invalid, unreachable, interrupted
)

// BaselineNone as GateOptions.Baseline judges the asserts only, whatever
// the suite's gate block says.
const BaselineNone = "none"

// GateOptions configures Gate.
type GateOptions struct {
	// Options runs the suite: plan, output path, target, progress, ...
	Options
	// Baseline is the baseline results file; "" means the suite's
	// gate.baseline (relative to the suite file), BaselineNone none at all.
	Baseline string
	// Rerun runs the runs whose changes a single run could not call once
	// more, and lets the mean of both runs decide (compare.Confirm).
	Rerun bool
	// RerunPath is where the confirming rerun's results file goes; ""
	// writes none.
	RerunPath string
	// FailOnInconclusive fails the gate on inconclusive changes, as the
	// gate block's fail_on_inconclusive does.
	FailOnInconclusive bool
	// Notify, when set, is told each note as it arises, so that a note
	// about the baseline is said before the runs rather than after them.
	// Every note is also in GateOutcome.Notes.
	Notify func(note string)
}

// GateOutcome is what a gate found: the files, the comparison and the
// verdict, with what stood in the way of judging.
type GateOutcome struct {
	// BaselinePath is the baseline file compared with; "" when none was.
	BaselinePath string
	// Baseline is the baseline read from BaselinePath; nil when the gate
	// judged the asserts only.
	Baseline *results.File
	// Current is the results of the run; never nil (an empty partial file
	// when nothing ran).
	Current *results.File
	// Rerun is the confirming rerun's results; nil when none was made.
	Rerun *results.File
	// Comparison judges Current (and Rerun) against Baseline; never nil.
	// Without a baseline it has no rows and holds the failed asserts only.
	// Its FailedAsserts are the asserts that fail the gate.
	Comparison *compare.Comparison
	// Runs sums up Current: invalid and partial runs, and the failed
	// asserts of runs that cannot be judged.
	Runs Verdict
	// Verdict is the gate's decision.
	Verdict GateVerdict
	// Regressions and Inconclusive count the comparison's rows with those
	// verdicts.
	Regressions, Inconclusive int
	// Problems are why the gate could not judge everything: the run's error
	// and invalid runs. They make the verdict GateError unless something
	// failed the gate anyway.
	Problems []error
	// Notes are what the user must know that does not change the verdict.
	Notes []string
}

// FailedAsserts returns the failed asserts that fail the gate: those of
// runs that may be judged.
func (o *GateOutcome) FailedAsserts() []compare.FailedAssert {
	return o.Comparison.FailedAsserts
}

// Gate runs the plan of s, compares the results with the baseline under the
// suite's gate block, confirms inconclusive changes by a rerun, and decides
// the verdict. The baseline is read before anything runs: the error is not
// nil only when it exists but cannot be read, and then nothing ran. Every
// later problem (a target that did not start, an invalid run, an
// interruption) is in the outcome, with the verdict GateError unless
// something failed the gate anyway.
func Gate(ctx context.Context, s *suite.Suite, opts GateOptions) (*GateOutcome, error) {
	g := &gate{opts: opts, out: &GateOutcome{}}
	if err := g.readBaseline(s); err != nil {
		return nil, err
	}
	g.out.Baseline = baselineForPlan(g.out.Baseline, opts.Plan) // a shard or --only: not the rest
	cfg := compare.ConfigFromGate(s.Gate)
	if opts.FailOnInconclusive {
		cfg.FailOnInconclusive = true
	}
	out := g.out
	cur, runErr := Run(ctx, s, opts.Options)
	if cur == nil {
		cur = &results.File{Version: results.SchemaVersion, Partial: true}
	}
	out.Current = cur
	out.Runs = Judge(cur)
	out.Comparison = compare.Compare(out.Baseline, cur, cfg) // no baseline: asserts only, no rows
	if out.Baseline != nil && opts.Rerun && runErr == nil && ctx.Err() == nil {
		if names := out.Comparison.RerunRuns(); len(names) > 0 {
			g.confirm(ctx, s, names, cfg)
		}
	}
	if note := out.Runs.UnjudgedNote(); note != "" {
		g.note(note)
	}
	out.Verdict, out.Problems = decide(out.Comparison, out.Runs, runErr)
	n := out.Comparison.Counts()
	out.Regressions, out.Inconclusive = n.ByVerdict[compare.Regression], n.ByVerdict[compare.Inconclusive]
	return out, nil
}

// gate is one Gate call's state.
type gate struct {
	opts GateOptions
	out  *GateOutcome
}

// note records a note and tells opts.Notify.
func (g *gate) note(s string) {
	g.out.Notes = append(g.out.Notes, s)
	if g.opts.Notify != nil {
		g.opts.Notify(s)
	}
}

// readBaseline finds and reads the baseline, noting when there is none.
func (g *gate) readBaseline(s *suite.Suite) error {
	path := BaselinePath(s, g.opts.Baseline)
	switch {
	case path == BaselineNone:
		g.note("baseline disabled (--baseline none): only the asserts are judged")
	case path == "":
		g.note("no baseline: the suite's gate block names none and --baseline was not given, so only the asserts are judged")
	default:
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			g.note(fmt.Sprintf("no baseline: %s does not exist yet, so only the asserts are judged (promote a results file from main to create it)", path))
			return nil
		}
		base, err := results.ReadFile(path)
		if err != nil {
			return fmt.Errorf("baseline %s: %w", path, err)
		}
		g.out.BaselinePath, g.out.Baseline = path, base
	}
	return nil
}

// BaselinePath is where the gate of s finds its baseline: flag when set
// (BaselineNone included), else the suite's gate.baseline relative to the
// suite file's directory, else "".
func BaselinePath(s *suite.Suite, flag string) string {
	if flag != "" {
		return flag
	}
	if s.Gate == nil || s.Gate.Baseline == "" {
		return ""
	}
	if filepath.IsAbs(s.Gate.Baseline) {
		return s.Gate.Baseline
	}
	return filepath.Join(filepath.Dir(s.Filename), s.Gate.Baseline)
}

// confirm reruns the runs named and decides their rows with
// compare.Confirm. A rerun that fails leaves the rows inconclusive.
func (g *gate) confirm(ctx context.Context, s *suite.Suite, names []string, cfg compare.Config) {
	plan := g.opts.Plan
	if plan == nil {
		plan = s.Plan()
	}
	rplan, err := plan.Filter(names)
	if err != nil {
		g.note(fmt.Sprintf("cannot rerun %s to confirm: %v", strings.Join(names, ", "), err))
		return
	}
	ropts := g.opts.Options
	ropts.Plan, ropts.OutputPath = rplan, g.opts.RerunPath
	ropts.PlanInfo = rerunPlanInfo(ropts.PlanInfo) // marks the file a rerun, for a gate on given results
	if ropts.Progress != nil {
		ropts.Progress.Report(ConfirmStarted{Runs: names})
	}
	rerun, err := Run(ctx, s, ropts)
	if err != nil || rerun == nil {
		g.note(fmt.Sprintf("the confirming rerun failed (%v); its runs stay inconclusive", err))
		return
	}
	g.out.Rerun = rerun
	g.out.Comparison = compare.Confirm(g.out.Baseline, g.out.Current, rerun, cfg)
}

// decide is the gate's verdict: regressions and failed asserts of runs that
// may be judged fail the gate (and inconclusive changes under
// FailOnInconclusive); otherwise a run that could not be judged makes it an
// error (as in llmgate run). It returns the problems that stood in the way.
func decide(c *compare.Comparison, v Verdict, runErr error) (GateVerdict, []error) {
	n := c.Counts()
	regressions, inconclusive := n.ByVerdict[compare.Regression], n.ByVerdict[compare.Inconclusive]
	problems := v.Problems(runErr)
	switch {
	case regressions > 0 || len(c.FailedAsserts) > 0 || (c.Config.FailOnInconclusive && inconclusive > 0):
		return GateFail, problems
	case len(problems) > 0:
		return GateError, problems
	case inconclusive > 0:
		return GateInconclusive, problems
	}
	return GatePass, problems
}
