package suite

import (
	"math"

	"github.com/hashicorp/hcl/v2"
	"github.com/llmgate/llmgate/internal/plan"
	"github.com/llmgate/llmgate/results"
)

// capacityBlock is `capacity { vary = "concurrency"  min = 1  max = 512
// slo = ttft.p95 < 500 }`: instead of one run at one load, the scenario
// searches for the largest load at which slo holds.
type capacityBlock struct {
	Vary     *hcl.Attribute `hcl:"vary"`
	Min      *hcl.Attribute `hcl:"min"`
	Max      *hcl.Attribute `hcl:"max"`
	SLO      *hcl.Attribute `hcl:"slo"`
	Step     *hcl.Attribute `hcl:"step,optional"`
	Repeats  *hcl.Attribute `hcl:"repeats,optional"`
	DefRange hcl.Range      `hcl:",def_range"`
}

// maxCapacityRepeats bounds repeats: each is a whole probe.
const maxCapacityRepeats = 5

// maxCapacityConcurrency bounds a concurrency search (a connection each).
const maxCapacityConcurrency = 100000

// decodeCapacity validates a capacity block of scenario name. ok is false
// when the block has errors (they are in l.diags); c.Vary is set whenever
// vary itself is valid.
func (l *loader) decodeCapacity(name string, b *capacityBlock, hasSweep bool, loadB *loadBlock, metricScope *scope) (c *plan.Capacity, ok bool) {
	ev := l.evaluator(nil)
	c = &plan.Capacity{DeclRange: sourceOf(b.DefRange), Repeats: 2}
	ok = true
	if hasSweep {
		l.errorf(b.DefRange.Ptr(), nil, "Capacity with a sweep",
			"Scenario %q has both a sweep and a capacity block; a capacity search chooses its own loads. Use one or the other, in two scenarios if you want both.", name)
		ok = false
	}
	if v, vok := ev.str(b.Vary); vok {
		switch vary := results.Vary(v); {
		case vary.Valid():
			c.Vary = vary
		default:
			ev.errorAt(b.Vary, "Invalid capacity variable",
				"vary = %q: a capacity search varies \"concurrency\" (closed loop, users) or \"rate\" (open loop, requests per second).%s",
				v, didYouMean(v, []string{string(results.VaryConcurrency), string(results.VaryRate)}))
			ok = false
		}
	} else {
		ok = false
	}
	lo, lok := ev.num(b.Min)
	hi, hok := ev.num(b.Max)
	ok = ok && lok && hok
	if lok && lo <= 0 {
		ev.errorAt(b.Min, "Invalid capacity bound", "min = %s: the smallest load to try must be above zero.", plan.FormatNumber(lo))
		ok = false
	}
	if lok && hok && hi <= lo {
		ev.errorAt(b.Max, "Invalid capacity bound", "max = %s must be above min = %s.", plan.FormatNumber(hi), plan.FormatNumber(lo))
		ok = false
	}
	if c.Vary == results.VaryConcurrency {
		for _, a := range []*hcl.Attribute{b.Min, b.Max} {
			if f, fok := ev.num(a); fok && (f != math.Trunc(f) || f > maxCapacityConcurrency) {
				ev.errorAt(a, "Invalid capacity bound", "%s = %s: concurrency is a whole number of users, at most %d.", a.Name, plan.FormatNumber(f), maxCapacityConcurrency)
				ok = false
			}
		}
		if loadB != nil && loadB.Rate != nil {
			l.errorf(loadB.Rate.Range.Ptr(), nil, "Rate with a concurrency search",
				"load.rate makes the scenario an open loop, where concurrency only caps requests in flight; a search over concurrency needs a closed loop. Remove rate, or vary = \"rate\".")
			ok = false
		}
	}
	if c.Vary == results.VaryConcurrency {
		c.Step = 1
	}
	if b.Step != nil {
		if s, sok := ev.num(b.Step); sok {
			switch {
			case s <= 0 || (lok && hok && s >= hi-lo):
				ev.errorAt(b.Step, "Invalid capacity step", "step = %s: the resolution of the answer must be above zero and below max - min.", plan.FormatNumber(s))
				ok = false
			case c.Vary == results.VaryConcurrency && s != math.Trunc(s):
				ev.errorAt(b.Step, "Invalid capacity step", "step = %s: concurrency moves in whole users.", plan.FormatNumber(s))
				ok = false
			default:
				c.Step = s
			}
		} else {
			ok = false
		}
	}
	if b.Repeats != nil {
		if n, nok := ev.int(b.Repeats); nok {
			if n < 1 || n > maxCapacityRepeats {
				ev.errorAt(b.Repeats, "Invalid capacity repeats", "repeats = %d: each end of the final bracket is probed 1 to %d times.", n, maxCapacityRepeats)
				ok = false
			} else {
				c.Repeats = n
			}
		} else {
			ok = false
		}
	}
	c.Min, c.Max = lo, hi

	// The SLO is an assert condition over metrics only: no sweep, and not
	// the capacity it is deciding.
	sloScope := *metricScope
	sloScope.sweep = nil
	d := sloScope.checkRefs(b.SLO.Expr, b.SLO.Range)
	l.diags = append(l.diags, d...)
	if len(d) > 0 {
		ok = false
	}
	for _, tr := range b.SLO.Expr.Variables() {
		if tr.RootName() == "capacity" {
			l.errorf(tr.SourceRange().Ptr(), b.SLO.Range.Ptr(), "Capacity in its own SLO",
				"The SLO decides each probe of the search, so it cannot use %s, the search's answer; compare the answer in an assert instead.", traversalText(tr))
			ok = false
		}
	}
	if len(d) == 0 {
		actx := l.ctx.NewChild()
		// the buckets it names: whether the workload has them is checked per run
		actx.Variables = unknownMetrics(bucketsNamed(b.SLO))
		n := len(l.diags)
		checkCondition(&evaluator{ctx: actx, diags: &l.diags}, b.SLO)
		if len(l.diags) > n {
			ok = false
		}
	}
	c.SLO = &plan.Assert{Name: "slo"} // compiled for its run (scenario)
	if r := b.SLO.Expr.Range(); r.End.Byte <= len(l.suite.Files[l.filename].Bytes) {
		c.SLO.Source = string(r.SliceBytes(l.suite.Files[l.filename].Bytes))
	}
	return c, ok
}

// checkCapacityRefs reports asserts of scenario name that use a capacity
// metric the scenario does not measure: capacity.* needs a capacity block
// varying the same knob.
func (l *loader) checkCapacityRefs(name string, asserts []*assertBlock, c *capacityBlock, vary results.Vary) {
	for _, ab := range asserts {
		if ab.Condition == nil {
			continue
		}
		for _, tr := range ab.Condition.Expr.Variables() {
			if tr.RootName() != "capacity" {
				continue
			}
			names, _ := attrNames(tr)
			if len(names) == 0 {
				continue // the reference check reports the incomplete name
			}
			switch {
			case c == nil:
				l.errorf(tr.SourceRange().Ptr(), ab.Condition.Range.Ptr(), "Capacity without a search",
					"Scenario %q has no capacity block, so %s is never measured; add capacity { vary = %q ... } to the scenario.", name, traversalText(tr), names[0])
			case vary != "" && results.Vary(names[0]) != vary:
				l.errorf(tr.SourceRange().Ptr(), ab.Condition.Range.Ptr(), "Capacity of another variable",
					"Scenario %q searches over %s, so its answer is capacity.%s, not %s.", name, vary, vary, traversalText(tr))
			}
		}
	}
}
