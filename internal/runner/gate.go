package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/internal/judge"
	"github.com/llmgate/llmgate/internal/load"
	"github.com/llmgate/llmgate/internal/plan"
	"github.com/llmgate/llmgate/internal/progress/event"
	"github.com/llmgate/llmgate/results"
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
	// Baseline and AllowDifferentBaseline are not used. Gate resolves it
	// (ResolveAB) before anything runs and returns ResolveAB's error.
	AB *ABOptions
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
	// Runs sums up Current: invalid and partial runs, and the failed
	// asserts of runs that cannot be judged.
	Runs RunTally
	// Judgement is the one judge's verdict on Current (and Rerun) against
	// Baseline: its Comparison (never nil; without a baseline it has no
	// rows and holds the failed asserts only, which fail the gate), the
	// Decision, its counts, the Problems that kept the gate from judging
	// everything (the run's error among them), and the Notes, the gate's
	// own included.
	judge.Judgement
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
func Gate(ctx context.Context, s *plan.Suite, opts GateOptions) (*GateOutcome, error) {
	g := &gate{opts: opts, out: &GateOutcome{}}
	if opts.AB != nil {
		if err := g.resolveAB(s); err != nil {
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
	cfg := s.Gate.CompareConfig()
	if opts.FailOnInconclusive {
		cfg.FailOnInconclusive = true
	}
	out := g.out
	var cur *results.File
	var runErr error
	if opts.AB != nil {
		cur, out.Baseline, runErr = g.ab.Run(ctx)
		out.BaselinePath = g.ab.BaselineOutputPath()
	} else {
		cur, runErr = Run(ctx, s, opts.Options)
	}
	if cur == nil {
		cur = &results.File{Version: results.SchemaVersion, Partial: true}
	}
	out.Current = cur
	g.judge(cfg, runErr, nil, nil) // no baseline: asserts only
	if out.Baseline != nil && opts.Rerun && runErr == nil && ctx.Err() == nil {
		if names := out.Comparison.RerunRuns(); len(names) > 0 {
			g.confirm(ctx, s, names, cfg)
		}
	}
	return out, nil
}

// gate is one Gate or GateResults call's state.
type gate struct {
	opts GateOptions
	out  *GateOutcome
	ab   *ABJob // an A/B gate's job, resolved before anything runs
}

// judge judges the outcome's current results (and rerun, when one is
// given) against its baseline through the one judge (package judge), with
// the run's error, and takes its verdict, counts and notes. A current file
// that turns out not comparable with the baseline although the plan was
// (checked before anything ran) is a problem, and only its asserts are
// judged.
func (g *gate) judge(cfg compare.Config, runErr error, rerunBase, rerun *results.File) {
	out := g.out
	out.Runs = TallyRuns(out.Current)
	in := judge.Input{Baseline: out.Baseline, Current: out.Current, Rerun: rerun, RerunBaseline: rerunBase,
		Config: cfg, AllowDifferent: g.opts.AllowDifferentBaseline, RunErr: runErr}
	j, err := judge.Judge(in)
	if err != nil {
		in.Baseline, in.Rerun, in.RerunBaseline, in.RunErr = nil, nil, nil, errors.Join(runErr, fmt.Errorf("baseline %s: %w", out.BaselinePath, err))
		j, _ = judge.Judge(in) // no baseline: nothing to refuse
	}
	notes := out.Notes
	out.Judgement, out.Notes = *j, notes
	for _, n := range append(j.Notes, out.Runs.UnjudgedNote()) {
		if n != "" && !slices.Contains(out.Notes, n) { // said before the run, or before the rerun
			g.note(n)
		}
	}
	out.Rerun = j.Comparison.Rerun
}

// note records a note and tells opts.Notify.
func (g *gate) note(s string) {
	g.out.Notes = append(g.out.Notes, s)
	if g.opts.Notify != nil {
		g.opts.Notify(s)
	}
}

// readBaseline finds and reads the baseline, noting when there is none.
func (g *gate) readBaseline(s *plan.Suite) error {
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
func (g *gate) useBaseline(s *plan.Suite, path string, base *results.File) error {
	note, err := judge.Comparable(base, planFile(s, g.opts.Plan), g.opts.AllowDifferentBaseline)
	if err != nil {
		return fmt.Errorf("baseline %s: %w", path, err)
	}
	if note != "" {
		g.note(note)
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
func planFile(s *plan.Suite, plan *plan.Plan) *results.File {
	if plan == nil {
		plan = s.Plan()
	}
	f := &results.File{Version: results.SchemaVersion, Suite: results.SuiteInfo{Name: s.Name, File: s.Filename}}
	for _, sr := range plan.Runs() {
		run := newRun(sr, "")
		if sr.Capacity == nil {
			lc := load.Recorded(sr.Load, sr.Trace)
			run.Load = &lc
		}
		f.Runs = append(f.Runs, run)
	}
	return f
}

// BaselinePath is where the gate of s finds its baseline: flag when set
// (BaselineNone included), else the suite's gate.baseline relative to the
// suite file's directory, else "".
func BaselinePath(s *plan.Suite, flag string) string {
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
func (g *gate) confirm(ctx context.Context, s *plan.Suite, names []string, cfg compare.Config) {
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
	ropts.PlanInfo = rerunPlanInfo(ropts.PlanInfo) // marks the file a rerun, for a gate on results measured elsewhere
	if ropts.Progress != nil {
		ropts.Progress.Report(event.ConfirmStarted{Runs: names})
	}
	if g.opts.AB != nil {
		g.confirmAB(ctx, ropts, names, cfg)
		return
	}
	rerun, err := Run(ctx, s, ropts)
	if err != nil || rerun == nil {
		g.note(fmt.Sprintf("the confirming rerun failed (%v); its runs stay inconclusive", err))
		return
	}
	g.judge(cfg, nil, nil, rerun)
}
