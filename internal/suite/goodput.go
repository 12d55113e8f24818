package suite

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/llmgate/llmgate/internal/plan"
)

// goodputBlock is `goodput { ttft = 500  tpot = 100  e2el = 20000 }`: the
// per-request limits in milliseconds that make a request "good".
type goodputBlock struct {
	TTFT     *hcl.Attribute `hcl:"ttft,optional"`
	TPOT     *hcl.Attribute `hcl:"tpot,optional"`
	E2EL     *hcl.Attribute `hcl:"e2el,optional"`
	DefRange hcl.Range      `hcl:",def_range"`
}

// goodput evaluates the limits; a nil block means no limits.
func (b *goodputBlock) goodput(ev *evaluator) plan.Goodput {
	var g plan.Goodput
	if b == nil {
		return g
	}
	for _, f := range []struct {
		attr *hcl.Attribute
		dst  *float64
	}{{b.TTFT, &g.TTFT}, {b.TPOT, &g.TPOT}, {b.E2EL, &g.E2EL}} {
		if v, ok := ev.num(f.attr); ok {
			if v <= 0 {
				ev.errorAt(f.attr, "Invalid goodput limit", "%s = %s: a goodput limit is a latency in milliseconds and must be above zero.", f.attr.Name, plan.FormatNumber(v))
				continue
			}
			*f.dst = v
		}
	}
	return g
}
