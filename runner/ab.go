package runner

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/llmgate/llmgate/load"
	"github.com/llmgate/llmgate/progress/event"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
	"github.com/llmgate/llmgate/suite"
	"github.com/llmgate/llmgate/target"
	"github.com/llmgate/llmgate/untrusted"
)

// ABOptions says what the baseline side of an A/B run is.
type ABOptions struct {
	// Baseline is the suite loaded with the baseline side's variables.
	Baseline *suite.Suite
	// BaselinePlan is the baseline side's plan, cut as Options.Plan is
	// (--only, --shard); nil means Baseline.Plan().
	BaselinePlan *suite.Plan
	// BaselineOutputPath is the baseline side's results file; "" means
	// results.ABBaselinePath of Options.OutputPath (none when that is "").
	BaselineOutputPath string
	// BaselineVars and CandidateVars are the variables each side was
	// given on the command line, recorded in its file.
	BaselineVars, CandidateVars map[string]string
	// Pairs is the number of block pairs every run is split into; 0
	// chooses by the run's size (abPairs).
	Pairs int
}

// RunAB runs the plan of cand and the plan of ab.Baseline in one job,
// interleaved: every run's measured requests are split into block pairs,
// one block of each side per pair, in a balanced order (abSchedule) so
// that a drift linear in time cancels; the blocks of a pair get the same
// prompts and arrivals. Each side keeps its own warmup and writes its own
// results file (the candidate's at opts.OutputPath), marked with
// results.AB and holding each run's blocks. The plans must be the same but
// for their targets (CheckABPlans); the error says so before anything
// starts. Otherwise, like Run, both files are returned even when the error
// is not nil.
func RunAB(ctx context.Context, cand *suite.Suite, opts Options, ab ABOptions) (candFile, baseFile *results.File, err error) {
	if opts.TargetURL != "" {
		return nil, nil, errors.New("an A/B run measures two servers: it cannot send both sides to one --target")
	}
	cplan := opts.Plan
	if cplan == nil {
		cplan = cand.Plan()
	}
	bplan := ab.BaselinePlan
	if bplan == nil {
		bplan = ab.Baseline.Plan()
	}
	if err := CheckABPlans(cplan, bplan); err != nil {
		return nil, nil, err
	}
	bopts := opts
	bopts.Plan = bplan
	bopts.OutputPath = ab.BaselineOutputPath
	if bopts.OutputPath == "" && opts.OutputPath != "" {
		bopts.OutputPath = results.ABBaselinePath(opts.OutputPath)
	}
	if bopts.LogDir == "" && opts.OutputPath != "" {
		bopts.LogDir = filepath.Dir(opts.OutputPath)
	}
	opts.Plan = cplan
	x := &abRun{
		cand: newRunner(cand, opts),
		base: newRunner(ab.Baseline, bopts),
		ab:   ab,
	}
	x.mark(opts.OutputPath, bopts.OutputPath)
	candFile, baseFile = x.cand.file, x.base.file
	defer func() {
		if p := recover(); p != nil {
			candFile.Partial, baseFile.Partial = true, true
			_ = x.cand.write()
			_ = x.base.write()
			panic(p)
		}
	}()
	err = x.run(ctx)
	x.cand.progress.Report(event.PlanFinished{File: candFile, Err: err})
	return candFile, baseFile, err
}

// abRun is one RunAB call's state: a runner per side.
type abRun struct {
	cand, base *runner
	ab         ABOptions
}

// mark records in both files that they are the two sides of one A/B job.
func (x *abRun) mark(candPath, basePath string) {
	x.cand.file.AB = &results.AB{Side: results.SideCandidate, Pair: filepath.Base(basePath), Vars: x.ab.CandidateVars, Modes: map[string]string{}}
	x.base.file.AB = &results.AB{Side: results.SideBaseline, Pair: filepath.Base(candPath), Vars: x.ab.BaselineVars, Modes: map[string]string{}}
}

func (x *abRun) run(ctx context.Context) error {
	werr := errors.Join(x.cand.write(), x.base.write())
	x.cand.progress.Report(event.PlanStarted{Suite: x.cand.suite.Name, Groups: len(x.cand.plan.Groups), Runs: x.cand.total})
	if werr != nil {
		return werr
	}
	var errs []error
	for gi, g := range x.cand.plan.Groups {
		if len(g.Runs) == 0 {
			continue
		}
		if err := ctx.Err(); err != nil {
			errs = append(errs, fmt.Errorf("interrupted before %s: %w", g.Runs[0].Name, err))
			break
		}
		if err := x.runGroup(ctx, gi); err != nil {
			errs = append(errs, err)
		}
		if werr := errors.Join(x.cand.write(), x.base.write()); werr != nil {
			return errors.Join(append(errs, werr)...)
		}
		if ctx.Err() != nil {
			break
		}
	}
	for _, r := range []*runner{x.cand, x.base} {
		if err := r.finish(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// runGroup runs one group's runs on both sides, keeping the servers as
// the group's A/B mode says.
func (x *abRun) runGroup(ctx context.Context, gi int) error {
	sides := [2]*abSide{
		newABSide(x.base, results.SideBaseline, gi),
		newABSide(x.cand, results.SideCandidate, gi),
	}
	mode := x.cand.suite.ABModeFor(sides[1].spec.Kind)
	if sides[0].spec.Kind != sides[1].spec.Kind {
		mode = x.cand.suite.ABModeFor(runspec.KindServer) // either is a container: treat both so
		if sides[0].spec.Kind != runspec.KindServer && sides[1].spec.Kind != runspec.KindServer {
			mode = suite.ABTogether
		}
	}
	for _, s := range sides {
		s.r.file.AB.Modes[s.g.Target.Name] = string(mode)
	}
	if mode == suite.ABCrossover {
		if err := crossoverGPUs(sides[0].spec, sides[1].spec); err != nil {
			err = fmt.Errorf("ab = \"crossover\": %w", err)
			return errors.Join(err, sides[0].failAll(err), sides[1].failAll(err))
		}
	}
	defer func() {
		for _, s := range sides {
			_ = s.down(ctx)
		}
	}()
	var errs []error
	for ri := range sides[1].g.Runs {
		err, fatal := x.runAB(ctx, sides, ri, mode)
		if err != nil {
			errs = append(errs, err)
		}
		if fatal {
			rest := fmt.Errorf("not run: %w", err)
			for _, s := range sides {
				errs = append(errs, s.r.failRuns(s.g.Runs[ri+1:], s.ref, rest))
			}
			break
		}
	}
	return errors.Join(errs...)
}

// runAB runs one run of the group on both sides, block by block in the
// balanced schedule, and records each side's run. fatal means the rest of
// the group cannot run.
func (x *abRun) runAB(ctx context.Context, sides [2]*abSide, ri int, mode suite.ABMode) (err error, fatal bool) {
	srs := [2]*suite.Run{sides[0].g.Runs[ri], sides[1].g.Runs[ri]}
	for si, sr := range srs {
		// the whole run's quantile edges, so that every block buckets alike
		resolved, rerr := load.ResolveLengthBuckets(load.Config{Load: sr.Load, RunName: sr.Name})
		if rerr != nil {
			return fmt.Errorf("run %s: %w", sr.Name, rerr), false
		}
		whole := *sr
		whole.Load = resolved.Load
		srs[si] = &whole
	}
	pairs := x.ab.Pairs
	if pairs <= 0 {
		pairs = abPairs(srs[1].Load)
		if mode == suite.ABAlternate {
			pairs = min(pairs, maxAlternatePairs) // each block is a server start
		}
	}
	sched := abSchedule(pairs)
	for _, s := range sides {
		if len(sched) > len(s.r.file.AB.Schedule) {
			s.r.file.AB.Schedule = sched
		}
	}
	for _, s := range sides {
		s.fresh = true // every run warms its servers up, as a plain run does
	}
	var blocks [2][]results.Run
	var slots [2][]int
	seen := [2]int{}
	var failed error
	for slot := range len(sched) {
		si := 0
		if sched[slot] == 'B' {
			si = 1
		}
		s := sides[si]
		swapped := mode == suite.ABCrossover && (slot >= len(sched)/2) != (ri%2 == 1)
		if err := s.ready(ctx, mode, swapped, sides[1-si]); err != nil {
			failed, fatal = err, true
			break
		}
		pair := seen[si]
		seen[si]++
		sr := *srs[si]
		sr.Load = blockLoad(srs[si].Load, pairs, pair, s.fresh)
		s.fresh = false
		run, bfatal, berr := s.r.execute(ctx, s.inst, s.spec.APIKey, &sr, s.ref)
		blocks[si] = append(blocks[si], run)
		slots[si] = append(slots[si], slot)
		if mode == suite.ABAlternate {
			if derr := s.down(ctx); derr != nil && berr == nil {
				berr, bfatal = derr, true
			}
		}
		if berr != nil {
			failed, fatal = fmt.Errorf("%s side: %w", s.side, berr), bfatal
			break
		}
	}
	var errs []error
	for si, s := range sides {
		run := mergeABRun(srs[si], s.ref, blocks[si], slots[si], pairs, failed)
		errs = append(errs, s.r.record(run))
	}
	if failed != nil {
		errs = append([]error{failed}, errs...)
	}
	return errors.Join(errs...), fatal
}

// maxAlternatePairs caps the block pairs of a run in ABAlternate mode,
// where every block starts its side's server: 4 pairs are 8 starts a run.
const maxAlternatePairs = 4

// abSide is one side's target in one group.
type abSide struct {
	r       *runner
	side    string
	gi      int
	g       *suite.Group
	spec    runspec.Target
	ref     string
	inst    target.Instance
	swapped bool // running on the other side's GPUs (crossover)
	fresh   bool // started since its last block: the next block warms up
}

func newABSide(r *runner, side string, gi int) *abSide {
	g := r.plan.Groups[gi]
	return &abSide{r: r, side: side, gi: gi, g: g, spec: r.spec(g), ref: g.Target.Ref()}
}

// ready makes sure the side's target is up, on the GPUs the crossover
// wants (the other side's when swapped), restarting it when not.
func (s *abSide) ready(ctx context.Context, mode suite.ABMode, swapped bool, other *abSide) error {
	if s.inst != nil && (mode != suite.ABCrossover || s.swapped == swapped) {
		return nil
	}
	if s.inst != nil {
		// A swap: both sides come down before either starts on the
		// other's GPUs, so no GPU holds two servers at once.
		if err := errors.Join(s.down(ctx), other.down(ctx)); err != nil {
			return err
		}
	}
	spec := s.spec
	if mode == suite.ABCrossover && swapped {
		spec.GPUs = other.spec.GPUs
	}
	s.swapped = swapped
	label := s.ref + " (" + s.side + ")"
	s.r.progress.Report(event.ServerStarting{Group: s.gi, Groups: len(s.r.plan.Groups), Target: label, Kind: spec.Kind,
		ServerArgs: s.g.ServerArgs, Scenario: s.g.Runs[0].Scenario, Runs: runNames(s.g)})
	t0 := s.r.now()
	inst, err := s.r.start(ctx, s.gi, label, spec, s.r.startOptions(s.gi, s.g, spec))
	s.inst = inst
	if err != nil {
		err = unavailable(fmt.Errorf("%s side: start %s: %w", s.side, s.ref, err))
		s.r.progress.Report(event.ServerReady{Group: s.gi, Target: label, Took: s.r.now().Sub(t0), Err: err})
		_ = s.down(ctx)
		return err
	}
	s.r.progress.Report(event.ServerReady{Group: s.gi, Target: label, Took: s.r.now().Sub(t0), URL: inst.BaseURL(), Model: untrusted.String(inst.Model())})
	s.r.setEnvironment(spec.Kind, inst)
	s.fresh = true
	return nil
}

// down stops the side's target when it is up.
func (s *abSide) down(ctx context.Context) error {
	if s.inst == nil {
		return nil
	}
	inst := s.inst
	s.inst = nil
	return s.r.stop(ctx, s.gi, s.ref+" ("+s.side+")", inst)
}

// failAll records every run of the side's group as failed with err.
func (s *abSide) failAll(err error) error { return s.r.failRuns(s.g.Runs, s.ref, unavailable(err)) }

func runNames(g *suite.Group) []string {
	names := make([]string, len(g.Runs))
	for i, sr := range g.Runs {
		names[i] = sr.Name
	}
	return names
}

// crossoverGPUs checks that the two sides run on disjoint GPUs that a
// crossover can swap: each side's gpus set to device ids, none shared.
func crossoverGPUs(base, cand runspec.Target) error {
	a, aerr := target.DeviceIDs(base.GPUs)
	b, berr := target.DeviceIDs(cand.GPUs)
	switch {
	case aerr != nil || len(a) == 0:
		return fmt.Errorf("the baseline side's gpus must name device ids such as \"device=0\" (got %q)", base.GPUs)
	case berr != nil || len(b) == 0:
		return fmt.Errorf("the candidate side's gpus must name device ids such as \"device=1\" (got %q)", cand.GPUs)
	}
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return fmt.Errorf("both sides use GPU %s: give each side its own devices (for example gpus = var.gpus with --ab-var gpus=device=0 --var gpus=device=1)", x)
			}
		}
	}
	return nil
}
