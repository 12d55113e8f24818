package suite

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/llmgate/llmgate/internal/plan"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
)

// mixBlock is `mix { workload "chat" {...} workload "rag" {...} }`: the
// workloads of a scenario that mixes traffic, in place of its workload
// block.
type mixBlock struct {
	Members  []*mixMemberBlock `hcl:"workload,block"`
	Body     hcl.Body          `hcl:",body"`
	DefRange hcl.Range         `hcl:",def_range"`
}

// mixMemberBlock is one `workload "name" {...}` of a mix: a weight and any
// workload's attributes.
type mixMemberBlock struct {
	Name     string         `hcl:"name,label"`
	Weight   *hcl.Attribute `hcl:"weight,optional"`
	Rest     hcl.Body       `hcl:",remain"`
	DefRange hcl.Range      `hcl:",def_range"`

	// workload is Rest decoded as a workload block.
	workload *workloadBlock
}

// maxMixMembers bounds a mix's workloads.
const maxMixMembers = 32

// decodeMix decodes a scenario's mix block once (its attributes are
// evaluated per run by fillMix) and reports what is wrong with its shape:
// a mix beside a workload block, no members, names that can't name
// metrics or name two members. Nil without a mix block.
func (l *loader) decodeMix(mb *mixBlock, workload *workloadBlock) []*mixMemberBlock {
	if mb == nil {
		return nil
	}
	if workload != nil {
		l.errorf(mb.DefRange.Ptr(), workload.DefRange.Ptr(), "Both workload and mix",
			"A scenario has a workload block or a mix block, not both: the mix's workload blocks say what its requests ask for. Move the workload into the mix as a workload \"name\" { ... } block, or remove the mix.")
	}
	if len(mb.Members) == 0 {
		l.errorf(mb.DefRange.Ptr(), nil, "Empty mix",
			"A mix needs at least one workload \"name\" { weight = 3 ... } block: the workloads its requests draw from.")
	}
	if len(mb.Members) > maxMixMembers {
		l.errorf(mb.Members[maxMixMembers].DefRange.Ptr(), nil, "Too many mix members", "A mix has at most %d workloads.", maxMixMembers)
	}
	seen := map[string]*mixMemberBlock{}
	for _, m := range mb.Members {
		if !results.ValidPartKey(results.PartMix, m.Name) {
			l.errorf(m.DefRange.Ptr(), nil, "Invalid mix member name",
				"%q names the member's metrics (mix.%s.ttft.p95), so it is a letter, then letters, digits or _, at most 32 characters.", m.Name, m.Name)
		}
		if prev, dup := seen[m.Name]; dup {
			l.errorf(m.DefRange.Ptr(), nil, "Duplicate mix member", "The mix already has a workload %q at %s.", m.Name, prev.DefRange)
		}
		seen[m.Name] = m
		m.workload = &workloadBlock{}
		l.diags = append(l.diags, decodeBody(m.Rest, m.workload)...)
		m.workload.Body, m.workload.DefRange = m.Rest, m.DefRange
	}
	return mb.Members
}

// fillMix evaluates the members into cfg.Mix, each member's workload over
// the defaults' workload block (defs, which may be nil), and sets
// cfg.Workload to the first member's.
func fillMix(ev *evaluator, members []*mixMemberBlock, defs *workloadBlock, files *fileRoot, cfg *runspec.Load) {
	for _, m := range members {
		mm := runspec.MixMember{Name: m.Name, Weight: 1}
		if w, ok := ev.num(m.Weight); ok {
			if w <= 0 || w > 1e9 {
				ev.errorAt(m.Weight, "Invalid weight", "weight = %s: it is the member's share of the requests, relative to the other members' weights, so it must be above 0 (and at most 1e9).", plan.FormatNumber(w))
			} else {
				mm.Weight = w
			}
		}
		wb := overlay(defs, m.workload)
		wb.fill(ev, &mm.Workload, files, m.DefRange)
		if mm.Workload.Kind == runspec.WorkloadTrace || mm.Workload.Kind == runspec.WorkloadConversation {
			ev.errorAt(m.workload.Kind, "Workload that can't be mixed",
				"kind = %q: its requests follow an order of their own (a trace's timestamps, a conversation's turns), which drawing each request's member by weight would break. Mix random, prefix, structured or dataset workloads.", mm.Workload.Kind)
		}
		for _, a := range []*hcl.Attribute{m.workload.LengthBucket, m.workload.LengthQuant, m.workload.BucketNames} {
			if a != nil {
				ev.errorAt(a, "Length buckets in a mix member", "%s splits the whole run's requests by input length; a mix member's requests have their own summary (mix.%s.*) instead. Leave it out of the member.", a.Name, m.Name)
			}
		}
		cfg.Mix = append(cfg.Mix, mm)
	}
	if len(cfg.Mix) > 0 {
		cfg.Workload = cfg.Mix[0].Workload
	}
}
