package suite

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/llmgate/llmgate/internal/plan"
)

// abModesText lists the modes for diagnostics.
const abModesText = `"together" (both sides up, sharing the GPUs), "alternate" (stop and start per block) or "crossover" (disjoint GPUs, swapped halfway)`

// abMode evaluates an ab attribute (of the gate or the defaults block),
// "" when it is absent or invalid (with a diagnostic).
func (l *loader) abMode(attr *hcl.Attribute) plan.ABMode {
	ev := l.evaluator(nil)
	mode, ok := ev.str(attr)
	if !ok {
		return ""
	}
	if !plan.ValidABMode(mode) {
		ev.errorAt(attr, "Invalid A/B mode", "ab = %q: it is how an A/B gate (--ab-var) keeps server containers: %s.%s", mode, abModesText, didYouMean(mode, plan.ABModes()))
		return ""
	}
	return plan.ABMode(mode)
}
