package runner

import (
	"context"
	"fmt"

	"github.com/llmgate/llmgate/compare"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/suite"
)

// ABNote is the note an A/B gate gives before anything runs.
const ABNote = "A/B in one job: the baseline side (--ab-var) runs beside the candidate, blocks interleaved; no baseline file is read"

// checkAB checks an A/B gate's two plans before anything runs and notes
// how the gate will judge.
func (g *gate) checkAB(s *suite.Suite) error {
	ab := g.opts.AB
	cplan := g.opts.Plan
	if cplan == nil {
		cplan = s.Plan()
	}
	bplan := ab.BaselinePlan
	if bplan == nil {
		bplan = ab.Baseline.Plan()
	}
	if err := CheckABPlans(cplan, bplan); err != nil {
		return err
	}
	if g.opts.TargetURL != "" {
		return fmt.Errorf("an A/B gate measures two servers: it cannot send both sides to one --target")
	}
	g.note(ABNote)
	return nil
}

// abBaselinePath is where the A/B gate's baseline side is written.
func (g *gate) abBaselinePath() string {
	if p := g.opts.AB.BaselineOutputPath; p != "" {
		return p
	}
	if g.opts.OutputPath == "" {
		return ""
	}
	return results.ABBaselinePath(g.opts.OutputPath)
}

// confirmAB reruns both sides of the runs named, in one A/B job again, and
// decides their rows over the block pairs of both jobs
// (compare.ConfirmAB).
func (g *gate) confirmAB(ctx context.Context, s *suite.Suite, ropts Options, names []string, cfg compare.Config) {
	ab := *g.opts.AB
	bplan := ab.BaselinePlan
	if bplan == nil {
		bplan = ab.Baseline.Plan()
	}
	rb, err := bplan.Filter(names)
	if err != nil {
		g.note(fmt.Sprintf("cannot rerun %v to confirm: %v", names, err))
		return
	}
	ab.BaselinePlan, ab.BaselineOutputPath = rb, ""
	if ropts.OutputPath != "" {
		ab.BaselineOutputPath = results.ABBaselinePath(ropts.OutputPath)
	}
	rerun, rerunBase, err := RunAB(ctx, s, ropts, ab)
	if err != nil || rerun == nil || rerunBase == nil {
		g.note(fmt.Sprintf("the confirming A/B rerun failed (%v); its runs stay inconclusive", err))
		return
	}
	g.judge(cfg, nil, rerunBase, rerun)
}
