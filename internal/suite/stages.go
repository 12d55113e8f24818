package suite

import (
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/llmgate/llmgate/internal/plan"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
	"github.com/zclconf/go-cty/cty"
)

// stageBlock is `stage {...}` inside load: one stage of a staged load,
// with its own arrival process (rate, with burstiness, or concurrency)
// and its own end (requests or duration).
type stageBlock struct {
	Rate        *hcl.Attribute `hcl:"rate,optional"`
	Burstiness  *hcl.Attribute `hcl:"burstiness,optional"`
	Concurrency *hcl.Attribute `hcl:"concurrency,optional"`
	Requests    *hcl.Attribute `hcl:"requests,optional"`
	Duration    *hcl.Attribute `hcl:"duration,optional"`
	Body        hcl.Body       `hcl:",body"`
	DefRange    hcl.Range      `hcl:",def_range"`
}

// overlayLoad is the load block of a scenario over the defaults' one. A
// scenario's stages replace the defaults' arrival process and end (rate,
// concurrency, burstiness, ramp, ramp_up, requests, duration), and a
// scenario's own rate or concurrency replaces the defaults' stages: the
// two ways of saying how much to send do not mix across blocks.
func overlayLoad(defs, sc *loadBlock) *loadBlock {
	out := overlay(defs, sc)
	if defs == nil || sc == nil {
		return out
	}
	cp := *out
	switch {
	case len(sc.Stages) > 0:
		cp.Rate, cp.Concurrency, cp.Burstiness, cp.Ramp, cp.RampUp = sc.Rate, sc.Concurrency, sc.Burstiness, sc.Ramp, sc.RampUp
		cp.Requests, cp.Duration = sc.Requests, sc.Duration
	case sc.Rate != nil || sc.Concurrency != nil:
		cp.Stages = nil
	}
	return &cp
}

// refuseWithStages reports the knobs a staged load has no use for: each
// stage says how requests arrive and when it ends.
func (b *loadBlock) refuseWithStages(ev *evaluator) {
	for _, a := range []*hcl.Attribute{b.Concurrency, b.Rate, b.Burstiness, b.Requests, b.Duration, b.RampUp} {
		if a != nil {
			ev.errorAt(a, a.Name+" beside stages", "This load block has stage blocks, and each stage sets its own rate (and burstiness) or concurrency and its own requests or duration; move %s into the stages.", a.Name)
		}
	}
	if b.Ramp != nil {
		ev.errorRange(b.Ramp.DefRange, "Ramp beside stages", "This load block has stage blocks; a ramp varies one rate over a run, stages change it step by step. Keep one of them.")
	}
	switch {
	case len(b.Stages) > results.MaxStages:
		ev.errorRange(b.Stages[results.MaxStages].DefRange, "Too many stages", "A load has at most 100 stages.")
	case b.traced:
		ev.errorRange(b.Stages[0].DefRange, "Stages with a trace", "A trace workload sends each request at its timestamp in the trace, so stages have no arrivals to shape; leave them out (time_scale in the workload replays the trace faster or slower).")
	case b.searched != "":
		ev.errorRange(b.Stages[0].DefRange, "Stages with a capacity search", "A capacity search varies one load over its probes; a staged load can't be searched. Leave out the stages or the capacity block.")
	}
}

// fillStages evaluates the load's stages into cfg.Stages.
func (b *loadBlock) fillStages(ev *evaluator, cfg *runspec.Load) {
	for _, sb := range b.Stages {
		var st runspec.Stage
		within := bodyRange(sb.Body, sb.DefRange)
		st.Rate, _ = rateOf(ev, sb.Rate)
		st.Concurrency, _ = concurrencyOf(ev, sb.Concurrency)
		if v, ok := ev.num(sb.Burstiness); ok {
			switch {
			case v <= 0:
				ev.errorAt(sb.Burstiness, "Invalid burstiness", "burstiness = %s: it is the gamma shape of the gaps between arrivals and must be above zero (1 is Poisson, below 1 burstier).", plan.FormatNumber(v))
			case sb.Rate == nil:
				ev.errorAt(sb.Burstiness, "Burstiness without a rate", "burstiness shapes an open-loop arrival process; set the stage's rate (requests per second) as well.")
			default:
				st.Burstiness = v
			}
		}
		if n, ok := ev.int(sb.Requests); ok {
			if n < 1 {
				ev.errorAt(sb.Requests, "Invalid request count", "requests = %d: a stage needs at least 1 measured request.", n)
			} else {
				st.Requests = n
			}
		}
		if d, ok := ev.duration(sb.Duration); ok {
			st.Duration = d
		}
		if sb.Rate == nil && sb.Concurrency == nil {
			ev.consequenceRange(sb.DefRange, within, "Stage without an arrival process",
				"Set the stage's concurrency = N for a closed loop of N users, or rate = R for an open loop of R requests per second (with concurrency as an optional cap).")
		}
		if sb.Requests == nil && sb.Duration == nil {
			ev.consequenceRange(sb.DefRange, within, "Stage without an end",
				"The stage sets neither requests nor duration, so it would never end and the stages after it never start; set requests = N, duration = \"1m\", or both (the first reached ends the stage).")
		}
		cfg.Stages = append(cfg.Stages, st)
	}
}

// loadParts are the parts a run's load declares: its mix members and its
// stages, whose metrics its asserts may name.
func loadParts(l *runspec.Load) []results.PartRef {
	var out []results.PartRef
	for _, m := range l.Mix {
		out = append(out, results.MemberRef(m.Name))
	}
	for i := range l.Stages {
		out = append(out, results.StageRef(i+1))
	}
	return out
}

// stageNumber is a traversal's number key (the 2 of stage.2.ttft.p95) as
// its name, "2"; false for a key that is not a whole number from 1.
func stageNumber(key cty.Value) (string, bool) {
	if key.Type() != cty.Number || !key.IsKnown() || key.IsNull() {
		return "", false
	}
	bf := key.AsBigFloat()
	n, acc := bf.Int64()
	if acc != big.Exact || n < 1 || n > results.MaxStages {
		return "", false
	}
	return strconv.FormatInt(n, 10), true
}

// checkPartRefs reports each reference of cond to a mix member or a stage
// that run's load does not declare, once however many runs lack it (seen
// holds those reported). It returns false when cond has such a reference.
func (l *loader) checkPartRefs(run *plan.Run, cond *hcl.Attribute, seen map[hcl.Pos]bool) bool {
	ok := true
	declared := loadParts(&run.Load)
	for _, tr := range cond.Expr.Variables() {
		m, isMetric := results.LookupMetric(traversalText(tr))
		if !isMetric || m.Part.IsZero() || slices.Contains(declared, m.Part) {
			continue
		}
		ok = false
		rng := tr.SourceRange()
		if seen[rng.Start] {
			continue
		}
		seen[rng.Start] = true
		detail := fmt.Sprintf("Run %s has no stage %s: its load declares %d stage block(s).", run.Name, m.Part.Key, len(run.Load.Stages))
		if m.Part.Kind == results.PartMix {
			var names []string
			for _, mm := range run.Load.Mix {
				names = append(names, mm.Name)
			}
			detail = fmt.Sprintf("Run %s has no mix member %q", run.Name, m.Part.Key)
			if len(names) == 0 {
				detail += ": its scenario has no mix block."
			} else {
				detail += "; its members are " + strings.Join(names, ", ") + "." + didYouMean(m.Part.Key, names)
			}
		}
		l.errorf(rng.Ptr(), cond.Range.Ptr(), "Unknown "+partNoun(m.Part), "%s", detail)
	}
	return ok
}

// partRoots makes each part kind that vars lacks (a capacity SLO checked
// before the runs that declare their members exist) wholly unknown, so
// that mix.chat.ttft.p95 type-checks; checkPartRefs judges per run
// whether the member or stage exists.
func partRoots(vars map[string]cty.Value) {
	for _, k := range results.PartKinds {
		if _, ok := vars[string(k)]; !ok {
			vars[string(k)] = cty.DynamicVal
		}
	}
}

// declaresPart reports whether some run of the suite declares ref.
func (l *loader) declaresPart(ref results.PartRef) bool {
	for _, sc := range l.suite.Scenarios {
		for _, r := range sc.Runs {
			if slices.Contains(loadParts(&r.Load), ref) {
				return true
			}
		}
	}
	return false
}

// partNoun is what ref names: "mix member" or "stage".
func partNoun(ref results.PartRef) string {
	if ref.Kind == results.PartMix {
		return "mix member"
	}
	return "stage"
}
