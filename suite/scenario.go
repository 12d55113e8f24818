package suite

import (
	"regexp"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// scenarioBlock is `scenario "name" {...}`: one kind of traffic against one
// target, expanded into one run per sweep point.
type scenarioBlock struct {
	Description *hcl.Attribute `hcl:"description,optional"`
	Target      *hcl.Attribute `hcl:"target,optional"`
	ServerArgs  *hcl.Attribute `hcl:"server_args,optional"`
	Workload    *workloadBlock `hcl:"workload,block"`
	Load        *loadBlock     `hcl:"load,block"`
	Sweep       *sweepBlock    `hcl:"sweep,block"`
	Goodput     *goodputBlock  `hcl:"goodput,block"`
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
	seen := map[string]*hcl.Block{}
	for _, b := range blocks {
		name := b.Labels[0]
		if !validName.MatchString(name) {
			l.errorf(b.LabelRanges[0].Ptr(), b.DefRange.Ptr(), "Invalid scenario name",
				"Scenario names may use letters, digits and _ . : - only (run names add [key=value] to them); %q does not.", name)
		}
		if prev, dup := seen[name]; dup {
			l.duplicate(b, prev, "scenario")
			continue
		}
		seen[name] = b
		var sb scenarioBlock
		l.diags = append(l.diags, decodeBody(b.Body, &sb)...)
		if sc := l.scenario(name, b, &sb, defs); sc != nil {
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

	var target *Target
	switch {
	case sb.Target != nil:
		target = l.resolveTarget(sb.Target)
	case defs.Target != nil:
		target = l.resolveTarget(defs.Target)
	default:
		target = l.defaultTarget(name, b.DefRange)
	}
	if target != nil && target.Kind == "endpoint" && sb.ServerArgs != nil {
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
		if ab.Condition != nil {
			d := assertScope.checkRefs(ab.Condition.Expr, ab.Condition.Range)
			l.diags = append(l.diags, d...)
			condOK[i] = len(d) == 0
		}
	}
	if !expand {
		return sc
	}

	loadB := overlay(defs.Load, sb.Load)
	workB := overlay(defs.Workload, sb.Workload)
	goodB := overlay(defs.Goodput, sb.Goodput)
	metrics := unknownMetrics()
	src := l.suite.Files[l.filename].Bytes
	for _, params := range points(keys) {
		ctx := l.ctx.NewChild()
		ctx.Variables = map[string]cty.Value{}
		if sb.Sweep != nil {
			ctx.Variables["sweep"] = sweepObject(params)
		}
		ev := &evaluator{ctx: ctx, scope: refScope, diags: &l.diags}
		run := &Run{Name: runName(name, params), Scenario: name, Params: params, Target: target, ctx: ctx}
		if args, ok := ev.strList(sb.ServerArgs); ok {
			run.ServerArgs = args
			checkServerArgs(ev, sb.ServerArgs, args)
		}
		loadB.fill(ev, &run.Load, b.DefRange)
		workB.fill(ev, &run.Load.Workload, l.dir, b.DefRange)
		run.Goodput = goodB.goodput(ev)

		actx := ctx.NewChild()
		actx.Variables = metrics
		aev := &evaluator{ctx: actx, diags: &l.diags}
		for i, ab := range sb.Asserts {
			if ab.Condition == nil {
				continue
			}
			if condOK[i] {
				checkCondition(aev, ab.Condition)
			}
			a := &Assert{Name: ab.Name, Condition: ab.Condition.Expr, DeclRange: ab.DefRange}
			if r := ab.Condition.Expr.Range(); r.End.Byte <= len(src) {
				a.Source = string(r.SliceBytes(src))
			}
			a.ErrorMessage, _ = ev.str(ab.ErrorMessage)
			run.Asserts = append(run.Asserts, a)
		}
		sc.Runs = append(sc.Runs, run)
	}
	return sc
}
