package main

import (
	"flag"
	"fmt"

	"github.com/llmgate/llmgate/internal/plan"
	"github.com/llmgate/llmgate/internal/runner"
	"github.com/llmgate/llmgate/results"
)

// shardFlag is --shard I/N: which shard of the plan a job runs.
type shardFlag struct {
	shard *plan.Shard // nil: the whole plan
}

func (f *shardFlag) String() string {
	if f.shard == nil {
		return ""
	}
	return f.shard.String()
}

// Set parses I/N; a bad value is a usage error (exit 2) with the reason.
func (f *shardFlag) Set(v string) error {
	sh, err := plan.ParseShard(v)
	if err != nil {
		return err
	}
	f.shard = &sh
	return nil
}

// shardSplit says how the plan is split, for the flag's help.
const shardSplit = "its server groups dealt N ways by planned load, the same split in every job (1 <= I <= N)"

// register adds --shard to fs; what says what the command does with the
// shard ("run", "show").
func (f *shardFlag) register(fs *flag.FlagSet, what string) {
	fs.Var(f, "shard", what+" only shard `I/N` of the plan: "+shardSplit)
}

// cut returns the shard of p to run and the plan information its
// results file records, saying on stdout what the shard holds.
func (f *shardFlag) cut(e *env, p *plan.Plan) (*plan.Plan, *results.PlanInfo) {
	if f.shard != nil {
		fmt.Fprintf(e.stdout, "llmgate: %s\n", runner.DescribeShard(p, *f.shard))
	}
	return runner.ShardPlan(p, f.shard)
}
