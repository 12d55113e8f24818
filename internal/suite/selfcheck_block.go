package suite

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/llmgate/llmgate/internal/plan"
	"github.com/llmgate/llmgate/runspec"
)

// selfCheckBlock is `self_check {...}` inside load: the bounds the load
// generator judges itself by, loosened for a runner known to be busy. A
// scenario's block replaces the defaults' whole.
type selfCheckBlock struct {
	ScheduleLag *hcl.Attribute `hcl:"schedule_lag_p99,optional"`
	Rate        *hcl.Attribute `hcl:"achieved_rate,optional"`
	InFlight    *hcl.Attribute `hcl:"in_flight,optional"`
	Length      *hcl.Attribute `hcl:"length,optional"`
}

// fill evaluates the bounds into sc; b may be nil (the defaults hold).
func (b *selfCheckBlock) fill(ev *evaluator, sc *runspec.SelfCheck) {
	if b == nil {
		return
	}
	if d, ok := ev.duration(b.ScheduleLag); ok { // positive: duration checks that
		sc.MaxScheduleLagP99 = d
	}
	sc.MinRateRatio = fraction(ev, b.Rate, "achieved_rate", "the least fraction of the planned rate an open loop must achieve", runspec.MinRateRatio)
	sc.MinInFlightRatio = fraction(ev, b.InFlight, "in_flight", "the least fraction of the concurrency a closed loop must keep in flight", runspec.MinInFlightRatio)
	sc.MaxLengthError = fraction(ev, b.Length, "length", "how far, as a fraction, the mean prompt and answer lengths may be from what the workload asked for", runspec.MaxLengthError)
}

// fraction evaluates attr as a fraction in (0, 1]; 0 when absent or wrong.
func fraction(ev *evaluator, attr *hcl.Attribute, name, what string, def float64) float64 {
	f, ok := ev.num(attr)
	if !ok {
		return 0
	}
	if !(f > 0 && f <= 1) {
		ev.errorAt(attr, "Invalid self-check bound", "%s = %s: it is %s, a fraction in (0, 1] (the default is %s).", name, plan.FormatNumber(f), what, plan.FormatNumber(def))
		return 0
	}
	return f
}
