package suite

import (
	"fmt"
	"regexp"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/llmgate/llmgate/internal/plan"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
	"github.com/zclconf/go-cty/cty"
)

// scenarioBlock is `scenario "name" {...}`: one kind of traffic against one
// target, expanded into one run per sweep point.
type scenarioBlock struct {
	Description *hcl.Attribute `hcl:"description,optional"`
	Target      *hcl.Attribute `hcl:"target,optional"`
	ServerArgs  *hcl.Attribute `hcl:"server_args,optional"`
	Workload    *workloadBlock `hcl:"workload,block"`
	Mix         *mixBlock      `hcl:"mix,block"`
	Load        *loadBlock     `hcl:"load,block"`
	Sweep       *sweepBlock    `hcl:"sweep,block"`
	Goodput     *goodputBlock  `hcl:"goodput,block"`
	Request     *requestBlock  `hcl:"request,block"`
	Capacity    *capacityBlock `hcl:"capacity,block"`
	Asserts     []*assertBlock `hcl:"assert,block"`
}

// validName is what scenario names may contain, so run names stay unambiguous.
var validName = regexp.MustCompile(`^[A-Za-z0-9_.:-]+$`)

func (l *loader) decodeScenarios(blocks hcl.Blocks, defs *defaultsBlock) {
	if len(blocks) == 0 {
		l.diags = append(l.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "No scenarios",
			Detail:   "A suite needs at least one scenario \"name\" { ... } block saying what traffic to send.",
			Subject:  &hcl.Range{Filename: l.filename, Start: hcl.InitialPos, End: hcl.InitialPos},
			Extra:    consequence{within: bodyRange(l.suite.Files[l.filename].Body, hcl.Range{})},
		})
	}
	if defs.Target != nil {
		// Checked even when every scenario names its own target; the
		// scenarios that inherit it report nothing twice (dedupe).
		l.resolveTarget(defs.Target)
	}
	seen := map[string]*hcl.Block{}
	for _, b := range blocks {
		name := b.Labels[0]
		if !validName.MatchString(name) {
			l.errorf(b.LabelRanges[0].Ptr(), b.DefRange.Ptr(), "Invalid scenario name",
				"Scenario names may use letters, digits and _ . : - only (run names add [key=value] to them); %q does not.", name)
		}
		prev, dup := seen[name]
		if dup {
			l.duplicate(b, prev, "scenario")
		} else {
			seen[name] = b
		}
		// A duplicate's body is still checked, so its own mistakes are
		// reported in this pass too; it just does not join the plan.
		var sb scenarioBlock
		l.diags = append(l.diags, decodeBody(b.Body, &sb)...)
		if sc := l.scenario(name, b, &sb, defs); sc != nil && !dup {
			l.suite.Scenarios = append(l.suite.Scenarios, sc)
		}
	}
	if l.implicit != nil {
		l.suite.Targets[l.implicit.Ref()] = l.implicit
	}
}

// scenario decodes one scenario and expands its sweep into runs.
func (l *loader) scenario(name string, b *hcl.Block, sb *scenarioBlock, defs *defaultsBlock) *Scenario {
	sc := &Scenario{Name: name, DeclRange: b.DefRange}
	sc.Description, _ = l.evaluator(nil).str(sb.Description)

	var target *plan.Target
	switch {
	case sb.Target != nil:
		target = l.resolveTarget(sb.Target)
	case defs.Target != nil:
		target = l.resolveTarget(defs.Target)
	default:
		target = l.defaultTarget(name, b.DefRange)
	}
	if target != nil && target.Kind == runspec.KindEndpoint && sb.ServerArgs != nil {
		l.errorf(sb.ServerArgs.Expr.Range().Ptr(), sb.ServerArgs.Range.Ptr(), "Server args for an endpoint",
			"server_args start a server with extra flags, but %s is an endpoint llmgate does not start; use a server or simulator target.", target.Ref())
	}

	refScope := &scope{vars: l.varNames, inScenario: true, scenario: name}
	var keys []sweepKey
	expand := true
	if sb.Sweep != nil {
		keys = l.decodeSweep(sb.Sweep)
		refScope.sweep = []string{}
		for _, k := range keys {
			refScope.sweep = append(refScope.sweep, k.name)
			if k.bad {
				expand = false
			}
		}
		if len(keys) == 0 {
			expand = false
		}
		used := sweepRefs(b.Body, l.defaultsBody)
		for _, a := range sweepAttrs(sb.Sweep) {
			if !used[a.Name] {
				d := attrDiag(hcl.DiagWarning, a, "Unused sweep key",
					fmt.Sprintf("Nothing in scenario %q uses sweep.%s, so its runs would all be the same; "+
						"refer to sweep.%s where the runs should differ, or remove the key.", name, a.Name, a.Name))
				// A misspelled sweep.<key> elsewhere in the scenario explains it.
				d.Extra = consequence{within: bodyRange(b.Body, b.DefRange)}
				l.diags = append(l.diags, d)
			}
		}
	}

	assertScope := *refScope
	assertScope.metrics = true
	condOK := make([]bool, len(sb.Asserts))
	assertSeen := map[string]*assertBlock{}
	for i, ab := range sb.Asserts {
		if prev, dup := assertSeen[ab.Name]; dup {
			l.errorf(ab.DefRange.Ptr(), nil, "Duplicate assert block",
				"assert %q is already defined at %s; each assert in a scenario needs its own name.", ab.Name, prev.DefRange)
		}
		assertSeen[ab.Name] = ab
		if p := results.NameProblem(ab.Name); p != "" {
			l.errorf(ab.DefRange.Ptr(), nil, "Invalid assert name",
				"The assert name %q %s; it names the assert in every report. Use printable characters on one line.", ab.Name, p)
		}
		if l.required(ab.Condition, "condition", ab.DefRange, ab.Body, "the SLO to check after the run, like condition = ttft.p95 < 500.") {
			d := assertScope.checkRefs(ab.Condition.Expr, ab.Condition.Range)
			l.diags = append(l.diags, d...)
			condOK[i] = len(d) == 0
		}
	}
	pts := points(keys)
	if !expand {
		// The sweep cannot be expanded, but the rest of the scenario is still
		// checked once, with the broken keys unknown, so every mistake in the
		// file is reported in one pass. The runs are discarded.
		pts = [][]sweepValue{validationPoint(keys)}
	}

	loadB := overlayLoad(defs.Load, sb.Load)
	workB := overlay(defs.Workload, sb.Workload)
	mix := l.decodeMix(sb.Mix, sb.Workload)
	goodB := overlay(defs.Goodput, sb.Goodput)
	var capacity *plan.Capacity
	var vary results.Vary
	if sb.Capacity != nil {
		c, ok := l.decodeCapacity(name, sb.Capacity, sb.Sweep != nil, loadB, &assertScope)
		vary = c.Vary
		if ok {
			capacity = c
		}
		if loadB != nil {
			// The search sets the varied knob; the block need not. An
			// invalid vary has its own error: the block is not blamed too.
			cp := *loadB
			cp.searched = c.Vary
			if cp.searched == "" {
				cp.searched = "invalid"
			}
			loadB = &cp
		}
	}
	l.checkCapacityRefs(name, sb.Asserts, sb.Capacity, vary)
	src := l.suite.Files[l.filename].Bytes
	bucketSeen := map[hcl.Pos]bool{}
	for _, point := range pts {
		ctx := l.ctx.NewChild()
		ctx.Variables = map[string]cty.Value{}
		if sb.Sweep != nil {
			ctx.Variables["sweep"] = sweepObject(point)
		}
		ev := &evaluator{ctx: ctx, scope: refScope, diags: &l.diags}
		ps := params(point)
		run := &plan.Run{Name: runName(name, ps), Scenario: name, Params: ps, Target: target, ResetBudget: l.budget.reset}
		if args, ok := ev.strList(sb.ServerArgs); ok {
			run.ServerArgs = args
			checkServerArgs(ev, sb.ServerArgs, args)
		}
		lb := loadB
		if lb != nil && workB.traced(ctx) {
			cp := *lb
			cp.traced = true
			lb = &cp
			if vary == results.VaryRate && sb.Capacity != nil {
				ev.errorRange(sb.Capacity.DefRange, "Rate search with a trace", "A trace workload sends each request at its timestamp in the trace, so a capacity search has no rate to vary; search vary = \"concurrency\" (the cap on what is in flight), or sweep time_scale.")
			}
		}
		lb.fill(ev, &run.Load, b.DefRange)
		workB.fill(ev, &run.Load.Workload, l.files, b.DefRange)
		fillMix(ev, mix, defs.Workload, l.files, &run.Load)
		l.secrets = append(l.secrets, requestShape(ev, defs.Request, sb.Request, &run.Load.Request, run.Load.Workload.Kind, target != nil && target.APIKey != "")...)
		run.Trace = l.readTrace(ev, workB, lb, &run.Load)
		run.Goodput = goodB.goodput(ev)
		if capacity != nil {
			l.checkBucketRefs(run, sb.Capacity.SLO, bucketSeen)
			l.checkPartRefs(run, sb.Capacity.SLO, bucketSeen)
			c, slo := *capacity, *capacity.SLO
			compileAssert(&slo, sb.Capacity.SLO.Expr, ctx, run.Load.Workload.LengthBucketNames, loadParts(&run.Load)...)
			c.SLO = &slo
			run.Capacity = &c
		}

		actx := ctx.NewChild()
		actx.Variables = unknownMetrics(run.Load.Workload.LengthBucketNames, loadParts(&run.Load)...)
		aev := &evaluator{ctx: actx, diags: &l.diags}
		for i, ab := range sb.Asserts {
			if ab.Condition == nil {
				continue
			}
			if condOK[i] && l.checkBucketRefs(run, ab.Condition, bucketSeen) && l.checkPartRefs(run, ab.Condition, bucketSeen) {
				checkCondition(aev, ab.Condition)
			}
			a := &plan.Assert{Name: ab.Name}
			if r := ab.Condition.Expr.Range(); r.End.Byte <= len(src) {
				a.Source = string(r.SliceBytes(src))
			}
			a.ErrorMessage, _ = ev.str(ab.ErrorMessage)
			if p := results.LineProblem(a.ErrorMessage); p != "" {
				ev.errorAt(ab.ErrorMessage, "Invalid error_message", "The message %s; reports print it on one line. Write it as one line of printable text.", p)
				a.ErrorMessage = ""
			}
			compileAssert(a, ab.Condition.Expr, ctx, run.Load.Workload.LengthBucketNames, loadParts(&run.Load)...)
			run.Asserts = append(run.Asserts, a)
		}
		sc.Runs = append(sc.Runs, run)
	}
	if !expand {
		sc.Runs = nil
	}
	return sc
}

// validationPoint is one sweep point for checking a scenario whose sweep
// could not be expanded: each key takes its first good value, or an unknown
// value when it has none (unknown values pass every check silently).
func validationPoint(keys []sweepKey) []sweepValue {
	point := make([]sweepValue, 0, len(keys))
	for _, k := range keys {
		v := cty.DynamicVal
		if len(k.values) > 0 {
			v = k.values[0]
		}
		point = append(point, sweepValue{plan.Param{Key: k.name}, v})
	}
	return point
}

// sweepAttrs returns the key attributes of a sweep block (nil when its body
// is not plain attributes; decodeSweep reports that).
func sweepAttrs(b *sweepBlock) []*hcl.Attribute {
	attrs, d := b.Body.JustAttributes()
	if d.HasErrors() {
		return nil
	}
	out := make([]*hcl.Attribute, 0, len(attrs))
	for _, a := range attrs {
		out = append(out, a)
	}
	return out
}

// sweepRefs returns the sweep keys that expressions in bodies reference
// as sweep.<key> or sweep["key"].
func sweepRefs(bodies ...hcl.Body) map[string]bool {
	used := map[string]bool{}
	for _, body := range bodies {
		sb, ok := body.(*hclsyntax.Body)
		if !ok {
			continue
		}
		hclsyntax.VisitAll(sb, func(n hclsyntax.Node) hcl.Diagnostics {
			e, ok := n.(*hclsyntax.ScopeTraversalExpr)
			if !ok || e.Traversal.RootName() != "sweep" {
				return nil
			}
			if len(e.Traversal) < 2 {
				return nil // the bare object; the reference check rejects it
			}
			switch step := e.Traversal[1].(type) {
			case hcl.TraverseAttr:
				used[step.Name] = true
			case hcl.TraverseIndex:
				if step.Key.Type() == cty.String && step.Key.IsKnown() {
					used[step.Key.AsString()] = true
				}
			}
			return nil
		})
	}
	return used
}
