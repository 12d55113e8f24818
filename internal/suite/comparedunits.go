package suite

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/llmgate/llmgate/results"
)

// comparedUnits gives each value of cond that is not a metric
// (var.ttft_ms, sweep.concurrency) the unit of the metric it is compared
// with directly, as in ttft.p95 < var.ttft_ms: the unit its number is in,
// for the messages and reports that show it. A name compared with no
// metric, or with metrics of different units, gets none; nil when no name
// gets one.
func comparedUnits(cond hcl.Expression) map[string]results.Unit {
	node, ok := cond.(hclsyntax.Node)
	if !ok {
		return nil
	}
	units := map[string]results.Unit{}
	clash := map[string]bool{}
	_ = hclsyntax.VisitAll(node, func(n hclsyntax.Node) hcl.Diagnostics {
		e, ok := n.(*hclsyntax.BinaryOpExpr)
		if !ok || !isComparison(e.Op) {
			return nil
		}
		for _, pair := range [][2]hclsyntax.Expression{{e.LHS, e.RHS}, {e.RHS, e.LHS}} {
			m, ok := comparedMetric(pair[0])
			name := valueName(pair[1])
			if !ok || name == "" {
				continue
			}
			if u, seen := units[name]; seen && u != m.Unit {
				clash[name] = true
			}
			units[name] = m.Unit
		}
		return nil
	})
	for name := range clash {
		delete(units, name)
	}
	if len(units) == 0 {
		return nil
	}
	return units
}

func isComparison(op *hclsyntax.Operation) bool {
	switch op {
	case hclsyntax.OpLessThan, hclsyntax.OpLessThanOrEqual, hclsyntax.OpGreaterThan,
		hclsyntax.OpGreaterThanOrEqual, hclsyntax.OpEqual, hclsyntax.OpNotEqual:
		return true
	}
	return false
}

// comparedMetric is the metric e names, when it is a metric's name.
func comparedMetric(e hclsyntax.Expression) (results.Metric, bool) {
	t, ok := e.(*hclsyntax.ScopeTraversalExpr)
	if !ok {
		return results.Metric{}, false
	}
	return results.LookupMetric(traversalText(t.Traversal))
}

// valueName is the name of the suite's value e is (var.ttft_ms,
// sweep.concurrency), "" when it is something else.
func valueName(e hclsyntax.Expression) string {
	t, ok := e.(*hclsyntax.ScopeTraversalExpr)
	if !ok {
		return ""
	}
	if root := t.Traversal.RootName(); root != "var" && root != "sweep" {
		return ""
	}
	return traversalText(t.Traversal)
}
