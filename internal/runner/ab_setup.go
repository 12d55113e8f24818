package runner

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/llmgate/llmgate/internal/plan"
	"github.com/llmgate/llmgate/results"
)

// ABOptions says what the baseline side of an A/B run is.
type ABOptions struct {
	// Baseline is the suite loaded with the baseline side's variables.
	Baseline *plan.Suite
	// BaselinePlan is the baseline side's plan, cut as Options.Plan is
	// (--only, --shard); nil means Baseline.Plan().
	BaselinePlan *plan.Plan
	// BaselineOutputPath is the baseline side's results file; "" means
	// results.ABBaselinePath of Options.OutputPath (none when that is "").
	BaselineOutputPath string
	// BaselineVars and CandidateVars are the variables each side was
	// given on the command line, recorded in its file.
	BaselineVars, CandidateVars map[string]string
	// Pairs is the number of block pairs every run is split into; 0
	// chooses by the run's size (blockPairs).
	Pairs int
}

// ErrABTarget is ResolveAB's error for an A/B run given one --target.
var ErrABTarget = errors.New("--ab-var measures two servers: it cannot be used with --target")

// ABJob is an A/B run resolved and checked (ResolveAB): each side's suite
// and run options, their plans the same but for what serves them.
type ABJob struct {
	cand, base         *plan.Suite
	candOpts, baseOpts Options // Plan and OutputPath resolved
	ab                 ABOptions
}

// ResolveAB is the one place an A/B run's settings are decided, before
// anything starts: both sides' plans (opts.Plan and ab.BaselinePlan, each
// its suite's whole plan when nil), which must be the same but for their
// targets (CheckABPlans), the baseline side's results file and log folder,
// and the refusal of a --target (ErrABTarget), since an A/B run measures
// two servers. Every error is the caller's usage.
func ResolveAB(cand *plan.Suite, opts Options, ab ABOptions) (*ABJob, error) {
	if opts.TargetURL != "" {
		return nil, ErrABTarget
	}
	if opts.Plan == nil {
		opts.Plan = cand.Plan()
	}
	if ab.BaselinePlan == nil {
		ab.BaselinePlan = ab.Baseline.Plan()
	}
	if err := CheckABPlans(opts.Plan, ab.BaselinePlan); err != nil {
		return nil, fmt.Errorf("%w (--ab-var may change only what serves the runs: images, server args, models)", err)
	}
	if ab.BaselineOutputPath == "" && opts.OutputPath != "" {
		ab.BaselineOutputPath = results.ABBaselinePath(opts.OutputPath)
	}
	bopts := opts
	bopts.Plan, bopts.OutputPath = ab.BaselinePlan, ab.BaselineOutputPath
	if bopts.LogDir == "" && opts.OutputPath != "" {
		bopts.LogDir = filepath.Dir(opts.OutputPath)
	}
	return &ABJob{cand: cand, base: ab.Baseline, candOpts: opts, baseOpts: bopts, ab: ab}, nil
}

// BaselineOutputPath is the baseline side's results file; "" when none is
// written.
func (j *ABJob) BaselineOutputPath() string { return j.ab.BaselineOutputPath }

// rerun is the job that reruns the runs named, on both sides, with the
// candidate's options ropts (the rerun's plan and results file); the
// baseline side's file sits beside the candidate's.
func (j *ABJob) rerun(ropts Options, names []string) (*ABJob, error) {
	rb, err := j.ab.BaselinePlan.Filter(names)
	if err != nil {
		return nil, err
	}
	ab := j.ab
	ab.BaselinePlan, ab.BaselineOutputPath = rb, ""
	return ResolveAB(j.cand, ropts, ab)
}
