package runner

import (
	"context"
	"fmt"

	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/internal/plan"
)

// ABNote is the note an A/B gate gives before anything runs.
const ABNote = "A/B in one job: the baseline side (--ab-var) runs beside the candidate, blocks interleaved; no baseline file is read"

// resolveAB resolves an A/B gate's job before anything runs (ResolveAB)
// and notes how the gate will judge.
func (g *gate) resolveAB(s *plan.Suite) error {
	j, err := ResolveAB(s, g.opts.Options, *g.opts.AB)
	if err != nil {
		return err
	}
	g.ab = j
	g.note(ABNote)
	return nil
}

// confirmAB reruns both sides of the runs named, in one A/B job again, and
// decides their rows over the block pairs of both jobs
// (compare.ConfirmAB).
func (g *gate) confirmAB(ctx context.Context, ropts Options, names []string, cfg compare.Config) {
	j, err := g.ab.rerun(ropts, names)
	if err != nil {
		g.note(fmt.Sprintf("cannot rerun %v to confirm: %v", names, err))
		return
	}
	rerun, rerunBase, err := j.Run(ctx)
	if err != nil || rerun == nil || rerunBase == nil {
		g.note(fmt.Sprintf("the confirming A/B rerun failed (%v); its runs stay inconclusive", err))
		return
	}
	g.judge(cfg, nil, rerunBase, rerun)
}
