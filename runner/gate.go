package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/llmgate/llmgate/compare"
	"github.com/llmgate/llmgate/load"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/suite"
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
	// BaselineFile, when set, is the baseline itself, resolved by the
	// caller from what Baseline names (a rolling baseline from a history
	// store); Baseline then only names it. It must be comparable as a file
	// would (compare.CheckComparable).
	BaselineFile *results.File
	// BaselineNote, when set, is noted about the baseline: where
	// BaselineFile came from, or, with Baseline set to BaselineNone, why
	// there is none.
	BaselineNote string
	// Rerun runs the runs whose changes a single run could not call once
	// more, and lets the mean of both runs decide (compare.Confirm).
	Rerun bool
	// RerunPath is where the confirming rerun's results file goes; ""
	// writes none.
	RerunPath string
	// FailOnInconclusive fails the gate on inconclusive changes, as the
	// gate block's fail_on_inconclusive does.
	FailOnInconclusive bool
	// AllowDifferentBaseline compares with a baseline of another suite or
	// of runs whose workload or load differ, which is otherwise refused.
	AllowDifferentBaseline bool
	// AB, when set, makes the gate an A/B in one job: the baseline side
	// (AB.Baseline, the suite under --ab-var) is measured beside the
	// candidate, interleaved (RunAB), and is the baseline compared with;
	// Baseline and AllowDifferentBaseline are not used.
	AB *ABOptions
	// Notify, when set, is told each note as it arises, so that a note
	// about the baseline is said before the runs rather than after them.
	// Every note is also in GateOutcome.Notes.
	Notify func(note string)

	// comparisons, when set, replaces the comparisons the gate makes
	// (realComparisons): a test's, to check that both gates guard them.
	comparisons *comparisons
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
	Runs RunTally
	// Decision is the gate's verdict: pass, fail, inconclusive or error.
	Decision compare.Decision
	// Regressions and Inconclusive count the comparison's rows with those
	// verdicts.
	Regressions, Inconclusive int
	// Problems are why the gate could not judge everything: the run's
	// error and every run or file the comparison could not judge
	// (Comparison.NotJudged). They make the verdict compare.DecisionError unless
	// something failed the gate anyway.
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
// nil when a baseline named by GateOptions.Baseline does not exist, when it
// exists but cannot be read, or when it is of another suite or plan (see
// compare.CheckComparable); then nothing ran. Every
// later problem (a target that did not start, an invalid run, an
// interruption) is in the outcome, with the verdict compare.DecisionError unless
// something failed the gate anyway.
func Gate(ctx context.Context, s *suite.Suite, opts GateOptions) (*GateOutcome, error) {
	g := &gate{opts: opts, out: &GateOutcome{}}
	if opts.AB != nil {
		if err := g.checkAB(s); err != nil {
			return nil, err
		}
	} else {
		if err := g.readBaseline(s); err != nil {
			return nil, err
		}
		var skipped []string
		g.out.Baseline, skipped = baselineForPlan(g.out.Baseline, s.Plan(), opts.Plan) // a shard or --only: not the rest
		if note := skippedNote(skipped); note != "" {
			g.note(note)
		}
	}
	cfg := compare.ConfigFromGate(s.Gate)
	if opts.FailOnInconclusive {
		cfg.FailOnInconclusive = true
	}
	out := g.out
	var cur *results.File
	var runErr error
	if opts.AB != nil {
		cur, out.Baseline, runErr = RunAB(ctx, s, opts.Options, *opts.AB)
		out.BaselinePath = g.abBaselinePath()
	} else {
		cur, runErr = Run(ctx, s, opts.Options)
	}
	if cur == nil {
		cur = &results.File{Version: results.SchemaVersion, Partial: true}
	}
	g.compareWith(cur, cfg) // no baseline: asserts only
	if out.Baseline != nil && opts.Rerun && runErr == nil && ctx.Err() == nil {
		if names := out.Comparison.RerunRuns(); len(names) > 0 {
			g.confirm(ctx, s, names, cfg)
		}
	}
	g.conclude(runErr)
	return out, nil
}

// gate is one Gate or GateResults call's state.
type gate struct {
	opts GateOptions
	out  *GateOutcome
}

// comparisons are the comparisons a gate makes.
type comparisons struct {
	compare   func(base, cur *results.File, cfg compare.Config) *compare.Comparison
	confirm   func(base, cur, rerun *results.File, cfg compare.Config) *compare.Comparison
	confirmAB func(base, cur, rerunBase, rerun *results.File, cfg compare.Config) *compare.Comparison
}

// realComparisons are compare's.
var realComparisons = comparisons{compare: compare.Compare, confirm: compare.Confirm, confirmAB: compare.ConfirmAB}

func (g *gate) comparisons() *comparisons {
	if g.opts.comparisons != nil {
		return g.opts.comparisons
	}
	return &realComparisons
}

// compareWith makes cur the outcome's current results and compares it
// with the baseline (its asserts alone without one), guarded: the one
// place where Gate and GateResults compare.
func (g *gate) compareWith(cur *results.File, cfg compare.Config) {
	out := g.out
	out.Current = cur
	out.Runs = TallyRuns(cur)
	out.Comparison = guarded(cur, cfg, func() *compare.Comparison { return g.comparisons().compare(out.Baseline, cur, cfg) })
}

// confirmWith decides the rows that asked for a rerun over the current
// results and rerun together (compare.Confirm), guarded.
func (g *gate) confirmWith(rerun *results.File, cfg compare.Config) {
	out := g.out
	out.Rerun = rerun
	out.Comparison = guarded(out.Current, cfg, func() *compare.Comparison { return g.comparisons().confirm(out.Baseline, out.Current, rerun, cfg) })
}

// confirmABWith is confirmWith for an A/B gate, whose rerun has both
// sides (compare.ConfirmAB), guarded.
func (g *gate) confirmABWith(rerunBase, rerun *results.File, cfg compare.Config) {
	out := g.out
	out.Rerun = rerun
	out.Comparison = guarded(out.Current, cfg, func() *compare.Comparison {
		return g.comparisons().confirmAB(out.Baseline, out.Current, rerunBase, rerun, cfg)
	})
}

// conclude decides the verdict once the comparison is final, with the
// run's error (nil when none), and counts its rows.
func (g *gate) conclude(runErr error) {
	out := g.out
	if note := out.Runs.UnjudgedNote(); note != "" {
		g.note(note)
	}
	out.Decision, out.Problems = decide(out.Comparison, runErr)
	n := out.Comparison.Counts()
	out.Regressions, out.Inconclusive = n.ByVerdict[compare.Regression], n.ByVerdict[compare.Inconclusive]
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
	if f := g.opts.BaselineFile; f != nil {
		return g.useBaseline(s, g.opts.Baseline, f)
	}
	path := BaselinePath(s, g.opts.Baseline)
	switch {
	case path == BaselineNone && g.opts.BaselineNote != "":
		g.note(g.opts.BaselineNote)
	case path == BaselineNone:
		g.note("baseline disabled (--baseline none): only the asserts are judged")
	case path == "":
		g.note("no baseline: the suite's gate block names none and --baseline was not given, so only the asserts are judged")
	default:
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			if g.opts.Baseline != "" {
				// A typo in a workflow must not quietly make the gate asserts-only.
				return fmt.Errorf("baseline %s does not exist (--baseline names it; pass --baseline none to judge the asserts only)", path)
			}
			g.note(fmt.Sprintf("no baseline: %s does not exist yet, so no regression is checked and only the asserts are judged (promote a results file from main to create it)", path))
			return nil
		}
		base, err := results.ReadFile(path)
		if err != nil {
			return fmt.Errorf("baseline %s: %w", path, err)
		}
		return g.useBaseline(s, path, base)
	}
	return nil
}

// useBaseline makes base, named path, the baseline once it is comparable
// with the plan (or the user allows a different one).
func (g *gate) useBaseline(s *suite.Suite, path string, base *results.File) error {
	if err := compare.CheckComparable(base, planFile(s, g.opts.Plan)); err != nil {
		if !g.opts.AllowDifferentBaseline {
			return fmt.Errorf("baseline %s: %w (pass --allow-different-baseline to compare anyway)", path, err)
		}
		g.note(fmt.Sprintf("comparing with a different baseline on purpose (--allow-different-baseline): %v", err))
	}
	if g.opts.BaselineNote != "" {
		g.note(g.opts.BaselineNote)
	}
	g.out.BaselinePath, g.out.Baseline = path, base
	return nil
}

// planFile is the results file the plan will write, before anything runs:
// the suite and each run's name, scenario, sweep values and load (but a
// capacity search's, whose load the search varies), which is what
// compare.CheckComparable needs.
func planFile(s *suite.Suite, plan *suite.Plan) *results.File {
	if plan == nil {
		plan = s.Plan()
	}
	f := &results.File{Version: results.SchemaVersion, Suite: results.SuiteInfo{Name: s.Name, File: s.Filename}}
	for _, sr := range plan.Runs() {
		run := newRun(sr, "")
		if sr.Capacity == nil {
			lc := load.Record(sr.Load, sr.Trace)
			run.Load = &lc
		}
		f.Runs = append(f.Runs, run)
	}
	return f
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
	if g.opts.AB != nil {
		g.confirmAB(ctx, s, ropts, names, cfg)
		return
	}
	rerun, err := Run(ctx, s, ropts)
	if err != nil || rerun == nil {
		g.note(fmt.Sprintf("the confirming rerun failed (%v); its runs stay inconclusive", err))
		return
	}
	g.confirmWith(rerun, cfg)
}

// guarded runs a comparison that must not take the gate down after the
// whole run: should it panic, the gate judges cur's asserts alone and the
// panic becomes a problem, so the verdict is error with a step summary and
// outputs, never a crash.
func guarded(cur *results.File, cfg compare.Config, cmp func() *compare.Comparison) (c *compare.Comparison) {
	defer func() {
		if p := recover(); p != nil {
			c = compare.Compare(nil, cur, cfg)
			c.AddProblem(fmt.Errorf("internal error while comparing with the baseline (please report it): %v", p))
		}
	}()
	return cmp()
}

// explained reports whether a run of cur already records runErr (a run that
// failed because its target was unreachable), so it is not said twice.
func explained(cur *results.File, runErr error) bool {
	if cur == nil {
		return false
	}
	for i := range cur.Runs {
		if e := cur.Runs[i].Error.Raw(); e != "" && strings.Contains(runErr.Error(), e) {
			return true
		}
	}
	return false
}

// decide is the gate's verdict: the comparison's Decide once the run's
// error, when there is one, is added to what was not judged. It returns the
// problems that stood in the way, one per thing not judged.
func decide(c *compare.Comparison, runErr error) (compare.Decision, []error) {
	if runErr != nil && !explained(c.Current, runErr) {
		c.AddProblem(runErr)
	}
	var problems []error
	for _, nj := range c.NotJudged {
		if nj.Kind == compare.CurrentPartial && runErr != nil {
			continue // the run's error says why the file was cut short
		}
		if nj.Run != "" {
			problems = append(problems, fmt.Errorf("%s: %s", nj.Run, nj.Reason))
		} else {
			problems = append(problems, errors.New(nj.Reason.Raw()))
		}
	}
	return c.Decide(), problems
}
