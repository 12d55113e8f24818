package suite

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/llmgate/llmgate/internal/plan"
	"github.com/llmgate/llmgate/runspec"
)

// targetKinds are the block types that define a target, in the order refs are suggested.
var targetKinds = []string{"server", "endpoint", "simulator"}

// implicitName is the name of the simulator a suite without targets runs against.
const implicitName = "default"

func (l *loader) decodeTargets(servers, endpoints, simulators hcl.Blocks) {
	seen := map[string]*hcl.Block{}
	for _, kb := range []struct {
		kind   runspec.TargetKind
		blocks hcl.Blocks
	}{{runspec.KindServer, servers}, {runspec.KindEndpoint, endpoints}, {runspec.KindSimulator, simulators}} {
		for _, b := range kb.blocks {
			t := &plan.Target{Target: runspec.Target{Kind: kb.kind, Name: b.Labels[0]}, DeclRange: sourceOf(b.DefRange)}
			if !hclsyntaxValidIdentifier(t.Name) {
				l.errorf(b.LabelRanges[0].Ptr(), b.DefRange.Ptr(), "Invalid "+string(kb.kind)+" name",
					"%q can't be referenced as %s.%s; use letters, digits, underscores and dashes, starting with a letter.", t.Name, kb.kind, t.Name)
				l.invalidTargets = append(l.invalidTargets, fmt.Sprintf("%s %q (line %d)", kb.kind, t.Name, b.DefRange.Start.Line))
				continue
			}
			if prev, dup := seen[t.Ref()]; dup {
				l.duplicate(b, prev, string(kb.kind))
				continue
			}
			seen[t.Ref()] = b
			ev := l.evaluator(nil)
			switch kb.kind {
			case runspec.KindServer:
				var sb serverBlock
				l.diags = append(l.diags, decodeBody(b.Body, &sb)...)
				l.required(sb.Image, "image", b.DefRange, b.Body, "the container image to start, like image = \"vllm/vllm-openai:v0.11.0\".")
				l.required(sb.Model, "model", b.DefRange, b.Body, "the model the server loads, like model = \"meta-llama/Llama-3.1-8B-Instruct\".")
				sb.fill(ev, t)
			case runspec.KindEndpoint:
				var eb endpointBlock
				l.diags = append(l.diags, decodeBody(b.Body, &eb)...)
				l.required(eb.URL, "url", b.DefRange, b.Body, "the address of the running server, like url = \"http://vllm.staging:8000\".")
				eb.fill(ev, t)
			case runspec.KindSimulator:
				var sb simulatorBlock
				l.diags = append(l.diags, decodeBody(b.Body, &sb)...)
				sb.fill(ev, t)
			}
			l.suite.Targets[t.Ref()] = t
		}
	}
}

// targetRefs lists the refs of every declared target, sorted.
func (l *loader) targetRefs() []string {
	refs := make([]string, 0, len(l.suite.Targets))
	for r := range l.suite.Targets {
		refs = append(refs, r)
	}
	sort.Strings(refs)
	return refs
}

// resolveTarget turns `target = server.vllm` into the target it names. A
// conditional over variables chooses between two references, so one
// variable can move a suite onto the simulator:
//
//	target = var.simulate ? simulator.sim : server.vllm
//
// Both references are checked whichever is chosen.
func (l *loader) resolveTarget(attr *hcl.Attribute) *plan.Target {
	cond, ok := attr.Expr.(*hclsyntax.ConditionalExpr)
	if !ok {
		return l.resolveTargetRef(attr.Expr, attr.Range)
	}
	whenTrue := l.resolveTargetRef(cond.TrueResult, attr.Range)
	whenFalse := l.resolveTargetRef(cond.FalseResult, attr.Range)
	choose, ok := l.evaluator(nil).boolean(&hcl.Attribute{Name: "the target's condition", Expr: cond.Condition, Range: attr.Range})
	if !ok {
		return nil
	}
	if choose {
		return whenTrue
	}
	return whenFalse
}

// resolveTargetRef resolves one target reference expression; attrRange is
// the whole attribute, for context.
func (l *loader) resolveTargetRef(expr hcl.Expression, attrRange hcl.Range) *plan.Target {
	tr, d := hcl.AbsTraversalForExpr(expr)
	if d.HasErrors() || len(tr) != 2 {
		l.errorf(expr.Range().Ptr(), attrRange.Ptr(), "Invalid target reference",
			"target must name a target block without quotes, like server.vllm, endpoint.staging or simulator.sim, "+
				"or choose between two with a condition on variables: var.simulate ? simulator.sim : server.vllm.")
		return nil
	}
	ref := traversalText(tr)
	kind := tr.RootName()
	if !contains(targetKinds, kind) {
		l.errorf(expr.Range().Ptr(), attrRange.Ptr(), "Invalid target reference",
			"%s is not a target: a target reference starts with server, endpoint or simulator.%s", ref, didYouMean(ref, l.targetRefs()))
		return nil
	}
	t := l.suite.Targets[ref]
	if t == nil {
		declared := "This suite declares no targets."
		if refs := l.targetRefs(); len(refs) > 0 {
			declared = "Declared targets: " + strings.Join(refs, ", ") + "."
		} else if len(l.invalidTargets) > 0 {
			declared = "This suite declares no usable target: " + strings.Join(l.invalidTargets, ", ") + " could not be read (see the error there)."
		}
		l.errorf(expr.Range().Ptr(), attrRange.Ptr(), "Reference to undefined target",
			"There is no %s block named %q. %s%s", kind, tr[1].(hcl.TraverseAttr).Name, declared, didYouMean(ref, l.targetRefs()))
		return nil
	}
	return t
}

// defaultTarget is the target of a scenario that names none and whose
// defaults name none: the only declared target, or an implicit simulator
// when the suite declares none.
func (l *loader) defaultTarget(scenario string, rng hcl.Range) *plan.Target {
	switch len(l.suite.Targets) {
	case 0:
		if l.implicit == nil {
			l.implicit = &plan.Target{Target: runspec.Target{Kind: runspec.KindSimulator, Name: implicitName, Profile: DefaultProfile}}
		}
		return l.implicit
	case 1:
		for _, t := range l.suite.Targets {
			if t != l.implicit {
				return t
			}
		}
	}
	l.errorf(rng.Ptr(), nil, "Scenario without a target",
		"Scenario %q names no target and the suite declares several (%s); set target = ... in the scenario or in the defaults block.",
		scenario, strings.Join(l.targetRefs(), ", "))
	return nil
}

// checkServerArgs validates server args that llmgate understands; today
// --gpu-memory-utilization, which must be a fraction in (0, 1].
func checkServerArgs(ev *evaluator, attr *hcl.Attribute, args []string) {
	for i, a := range args {
		var val string
		switch {
		case a == "--gpu-memory-utilization" && i+1 < len(args):
			val = args[i+1]
		case strings.HasPrefix(a, "--gpu-memory-utilization="):
			val = strings.TrimPrefix(a, "--gpu-memory-utilization=")
		default:
			continue
		}
		if msg := checkGPUMemoryUtilization(val); msg != "" {
			ev.errorAt(attr, "Invalid --gpu-memory-utilization", "%s", msg)
		}
	}
}

// checkGPUMemoryUtilization returns why s is not a valid fraction of GPU memory, or "".
func checkGPUMemoryUtilization(s string) string {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Sprintf("--gpu-memory-utilization %q is not a number; it is the fraction of GPU memory vLLM may use, like 0.9.", s)
	}
	if !(f > 0 && f <= 1) {
		return fmt.Sprintf("--gpu-memory-utilization %s is outside (0, 1]: it is the fraction of GPU memory vLLM may use, like 0.9 for 90%%.", s)
	}
	return ""
}
