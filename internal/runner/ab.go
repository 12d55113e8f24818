package runner

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/llmgate/llmgate/internal/backend"
	"github.com/llmgate/llmgate/internal/judge"
	"github.com/llmgate/llmgate/internal/load"
	"github.com/llmgate/llmgate/internal/plan"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
)

// RunAB runs the plan of cand and the plan of ab.Baseline in one job,
// interleaved: every run's measured requests are split into block pairs,
// one block of each side per pair, in a balanced order (abSchedule) so
// that a drift linear in time cancels; the blocks of a pair get the same
// prompts and arrivals. Each side keeps its own warmup and writes its own
// results file (the candidate's at opts.OutputPath), marked with
// results.AB and holding each run's blocks. The plans must be the same but
// for their targets (CheckABPlans): RunAB is ResolveAB, whose error says
// what is wrong before anything starts, then ABJob.Run, which, like Run,
// returns both files even when the error is not nil.
func RunAB(ctx context.Context, cand *plan.Suite, opts Options, ab ABOptions) (candFile, baseFile *results.File, err error) {
	j, err := ResolveAB(cand, opts, ab)
	if err != nil {
		return nil, nil, err
	}
	return j.Run(ctx)
}

// Run runs the job: RunAB once resolved.
func (j *ABJob) Run(ctx context.Context) (candFile, baseFile *results.File, err error) {
	x := &abRun{
		cand: newRunner(j.cand, j.candOpts),
		base: newRunner(j.base, j.baseOpts),
		ab:   j.ab,
	}
	x.mark(j.candOpts.OutputPath, j.baseOpts.OutputPath)
	return x.cand.file, x.base.file, x.cand.runPlan(ctx, x)
}

// abRun is one RunAB call's state: a runner per side.
type abRun struct {
	cand, base *runner
	ab         ABOptions
}

// mark records in both files that they are the two sides of one A/B job.
func (x *abRun) mark(candPath, basePath string) {
	x.cand.file.AB = &results.AB{Side: results.SideCandidate, Pair: filepath.Base(basePath), Vars: x.ab.CandidateVars, Modes: map[string]results.ABMode{}}
	x.base.file.AB = &results.AB{Side: results.SideBaseline, Pair: filepath.Base(candPath), Vars: x.ab.BaselineVars, Modes: map[string]results.ABMode{}}
}

// write writes both sides' files.
func (x *abRun) write() error { return errors.Join(x.cand.write(), x.base.write()) }

// abandon marks both sides' files partial and writes them.
func (x *abRun) abandon() {
	x.cand.abandon()
	x.base.abandon()
}

// finish finishes both sides' files.
func (x *abRun) finish(ctx context.Context) error {
	return errors.Join(x.cand.finish(ctx), x.base.finish(ctx))
}

// runGroup runs one group's runs on both sides, keeping the servers as
// the group's A/B mode says.
func (x *abRun) runGroup(ctx context.Context, gi int) error {
	sides := [2]*abSide{
		newABSide(x.base, results.SideBaseline, gi),
		newABSide(x.cand, results.SideCandidate, gi),
	}
	mode := abMode(x.cand.suite, sides[0].spec.Kind, sides[1].spec.Kind)
	for _, s := range sides {
		s.r.file.AB.Modes[s.g.Target.Name] = mode
	}
	if mode == plan.ABCrossover {
		if err := crossoverGPUs(sides[0].spec, sides[1].spec); err != nil {
			err = fmt.Errorf("ab = \"crossover\": %w", err)
			return errors.Join(judge.Recorded(err, runNames(sides[1].g)...), sides[0].failAll(err), sides[1].failAll(err))
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

// abMode is the mode of a group whose sides' targets are of the kinds
// given, as the candidate's suite says (plan.ABModeFor): when the kinds
// differ, the mode of a server container if either side is one, else
// ABTogether.
func abMode(s *plan.Suite, base, cand runspec.TargetKind) plan.ABMode {
	switch {
	case base == cand:
		return s.ABModeFor(cand)
	case base == runspec.KindServer || cand == runspec.KindServer:
		return s.ABModeFor(runspec.KindServer) // either is a container: treat both so
	}
	return plan.ABTogether
}

// runAB runs one run of the group on both sides, block by block in the
// balanced schedule, and records each side's run. fatal means the rest of
// the group cannot run.
func (x *abRun) runAB(ctx context.Context, sides [2]*abSide, ri int, mode plan.ABMode) (err error, fatal bool) {
	srs := [2]*plan.Run{sides[0].g.Runs[ri], sides[1].g.Runs[ri]}
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
		pairs = blockPairs(srs[1].Load)
		if mode == plan.ABAlternate {
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
		swapped := mode == plan.ABCrossover && (slot >= len(sched)/2) != (ri%2 == 1)
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
		if mode == plan.ABAlternate {
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
	if failed != nil { // both sides' runs record it (mergeABRun)
		errs = append([]error{judge.Recorded(failed, srs[1].Name)}, errs...)
	}
	return errors.Join(errs...), fatal
}

// maxAlternatePairs caps the block pairs of a run in ABAlternate mode,
// where every block starts its side's server: 4 pairs are 8 starts a run.
const maxAlternatePairs = 4

// abSide is one side's target in one group.
type abSide struct {
	r       *runner
	side    results.ABSide
	gi      int
	g       *plan.Group
	spec    runspec.Target
	ref     string
	inst    backend.Instance
	swapped bool // running on the other side's GPUs (crossover)
	fresh   bool // started since its last block: the next block warms up
}

func newABSide(r *runner, side results.ABSide, gi int) *abSide {
	g := r.plan.Groups[gi]
	return &abSide{r: r, side: side, gi: gi, g: g, spec: r.spec(g), ref: g.Target.Ref()}
}

// ready makes sure the side's target is up, on the GPUs the crossover
// wants (the other side's when swapped), restarting it when not.
func (s *abSide) ready(ctx context.Context, mode plan.ABMode, swapped bool, other *abSide) error {
	if s.inst != nil && (mode != plan.ABCrossover || s.swapped == swapped) {
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
	if mode == plan.ABCrossover && swapped {
		spec.GPUs = other.spec.GPUs
	}
	s.swapped = swapped
	inst, err := s.r.bringUp(ctx, s.gi, s.g, s.label(), spec, func(err error) error {
		return unavailable(fmt.Errorf("%s side: start %s: %w", s.side, s.ref, err))
	})
	s.inst = inst
	if err != nil {
		_ = s.down(ctx)
		return err
	}
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
	return s.r.stop(ctx, s.gi, s.label(), inst)
}

// label names the side's target in the events: "vllm (baseline)".
func (s *abSide) label() string { return s.ref + " (" + string(s.side) + ")" }

// failAll records every run of the side's group as failed with err.
func (s *abSide) failAll(err error) error { return s.r.failRuns(s.g.Runs, s.ref, unavailable(err)) }

// crossoverGPUs checks that the two sides run on disjoint GPUs that a
// crossover can swap: each side's gpus set to device ids, none shared.
func crossoverGPUs(base, cand runspec.Target) error {
	a, aerr := backend.DeviceIDs(base.GPUs)
	b, berr := backend.DeviceIDs(cand.GPUs)
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
