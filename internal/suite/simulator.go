package suite

import (
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/llmgate/llmgate/internal/plan"
)

// DefaultProfile is the simulator profile used when a simulator block names
// none, and by the implicit simulator of a suite that declares no target.
const DefaultProfile = "llama-3.1-8b-h100"

// knownProfiles are the simulator's profiles; an unknown one is a warning,
// since the simulator decides in the end.
var knownProfiles = []string{"llama-3.1-8b-h100", "llama-3.1-8b-a100", "mixtral-8x7b-h100", "tiny"}

// simulatorBlock is `simulator "name" {...}`: the embedded vLLM simulator.
type simulatorBlock struct {
	Profile      *hcl.Attribute `hcl:"profile,optional"`
	Model        *hcl.Attribute `hcl:"model,optional"`
	Args         *hcl.Attribute `hcl:"args,optional"`
	DCGMExporter *hcl.Attribute `hcl:"dcgm_exporter,optional"`
}

// fill sets t's fields from the block, validating each.
func (b *simulatorBlock) fill(ev *evaluator, t *plan.Target) {
	t.Profile = DefaultProfile
	if p, ok := ev.str(b.Profile); ok {
		t.Profile = p
		if !contains(knownProfiles, p) {
			ev.warnAt(b.Profile, "Unknown simulator profile",
				"The simulator knows the profiles %s; %q may not exist.%s", strings.Join(knownProfiles, ", "), p, didYouMean(p, knownProfiles))
		}
	}
	t.Model, _ = ev.str(b.Model)
	if args, ok := ev.strList(b.Args); ok {
		t.Args = args
		checkServerArgs(ev, b.Args, args)
	}
	fillDCGMExporter(ev, b.DCGMExporter, t)
}
