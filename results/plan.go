package results

import (
	"slices"
	"time"
)

// PlanInfo identifies the plan a results file holds runs of and, when the
// plan was split across jobs with --shard, which of its shards the file holds.
type PlanInfo struct {
	// Fingerprint is the plan's fingerprint (internal/plan's Plan.Fingerprint): files
	// of one suite loaded with the same variables and --only share it.
	Fingerprint string `json:"fingerprint" text:"line"`
	// Runs is how many runs the whole plan has, over all its shards.
	Runs int `json:"runs"`
	// Shards is how many shards the plan was split into; 0 when the file
	// is of the whole plan, unsplit.
	Shards int `json:"shards,omitempty"`
	// Parts are the shards whose runs the file holds, by shard: one in a
	// shard's own file, one per shard in a merged file.
	Parts []ShardPart `json:"parts,omitempty"`
	// Rerun marks the confirming rerun a gate made of some of the planned
	// runs (llmgate gate writes it beside its results as NAME.rerun.json):
	// a gate on results measured elsewhere confirms with it instead of calling the
	// change inconclusive.
	Rerun bool `json:"rerun,omitempty"`
}

// ShardPart is one shard of a plan as one job ran it.
type ShardPart struct {
	// Shard is the shard's index, from 1 to PlanInfo.Shards.
	Shard int `json:"shard"`
	// Planned names the shard's runs, in plan order; the file's runs of
	// this shard are these, less any that never started.
	Planned []string `json:"planned" text:"name"`
	// Environment is where the shard ran (runner, GPU, image digest, ...).
	// A shard's own file leaves it nil: the file's Environment is the
	// shard's. Merge fills it in.
	Environment *Environment `json:"environment,omitempty"`
	// Created and Partial are those of the shard's own file; Merge fills
	// them in.
	Created time.Time `json:"created,omitzero"`
	Partial bool      `json:"partial,omitempty"`
}

// Sharded reports whether the file holds shards of a split plan.
func (f *File) Sharded() bool { return f.Plan != nil && f.Plan.Shards > 0 }

// MissingShards lists the shards of a split plan that the file does not
// hold, in order; nil for an unsplit plan.
func (p *PlanInfo) MissingShards() []int {
	if p == nil || p.Shards <= 0 {
		return nil
	}
	var missing []int
	for i := 1; i <= p.Shards; i++ {
		if !slices.ContainsFunc(p.Parts, func(sp ShardPart) bool { return sp.Shard == i }) {
			missing = append(missing, i)
		}
	}
	return missing
}

// RunEnvironment is where the named run was measured: the environment of
// the shard that planned it, else the file's own.
func (f *File) RunEnvironment(run string) Environment {
	if f.Plan != nil {
		for _, p := range f.Plan.Parts {
			if p.Environment != nil && slices.Contains(p.Planned, run) {
				return *p.Environment
			}
		}
	}
	return f.Environment
}
