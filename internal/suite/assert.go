package suite

import (
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/llmgate/llmgate/results"
	"github.com/zclconf/go-cty/cty"
)

// assertBlock is `assert "name" { condition = ...  error_message = "..." }`:
// an SLO checked against the run's metrics after it finishes.
type assertBlock struct {
	Name         string         `hcl:"name,label"`
	Condition    *hcl.Attribute `hcl:"condition"`
	ErrorMessage *hcl.Attribute `hcl:"error_message,optional"`
	Body         hcl.Body       `hcl:",body"`
	DefRange     hcl.Range      `hcl:",def_range"`
}

// checkCondition validates a condition's references once and its type at
// one sweep point, with every metric unknown: it must be a bool.
func checkCondition(ev *evaluator, attr *hcl.Attribute) {
	v, d := attr.Expr.Value(ev.ctx)
	*ev.diags = append(*ev.diags, d...)
	if d.HasErrors() {
		return
	}
	if v.IsNull() {
		ev.errorAt(attr, "Invalid assert condition", "The condition is null; it must be true or false.")
		return
	}
	if !v.Type().Equals(cty.Bool) && v.Type() != cty.DynamicPseudoType {
		ev.errorAt(attr, "Invalid assert condition",
			"The condition must be true or false, like ttft.p95 < 500, but it is %s.", friendlyType(v.Type()))
	}
}

// unknownMetrics is the metric object with every value unknown, for type
// checking conditions before any run; buckets are the run's length buckets.
func unknownMetrics(buckets []string, parts ...results.PartRef) map[string]cty.Value {
	out := metricObjects(nil, buckets, parts...)
	partRoots(out)
	return out
}

// metricObjects turns flat metric values ("ttft.p95" = 612.4) into one cty
// value per root: ttft = { p95 = 612.4, ... }, error_rate = 0.01. Every name
// of the namespace is present; those vals lacks (no server metrics) are
// unknown, so a condition that doesn't need them (a || whose other side is
// true) still decides. The metrics of each length bucket in buckets are
// there too, under length_bucket.<name>, and those of each part in parts
// (mix.<member>.*, stage.<n>.*).
func metricObjects(vals map[string]float64, buckets []string, parts ...results.PartRef) map[string]cty.Value {
	type node struct {
		leaf     cty.Value
		children map[string]*node
	}
	root := &node{children: map[string]*node{}}
	names := results.MetricNamesWithBuckets(buckets)
	for _, p := range parts {
		names = append(names, results.PartMetricNames(p)...)
	}
	for _, name := range names {
		n := root
		for _, part := range strings.Split(name, ".") {
			c := n.children[part]
			if c == nil {
				c = &node{children: map[string]*node{}}
				n.children[part] = c
			}
			n = c
		}
		n.leaf = cty.UnknownVal(cty.Number)
		if v, ok := vals[name]; ok {
			n.leaf = cty.NumberFloatVal(v)
		}
	}
	var build func(n *node) cty.Value
	build = func(n *node) cty.Value {
		if len(n.children) == 0 {
			return n.leaf
		}
		m := make(map[string]cty.Value, len(n.children))
		for k, c := range n.children {
			m[k] = build(c)
		}
		return cty.ObjectVal(m)
	}
	out := make(map[string]cty.Value, len(root.children))
	for k, c := range root.children {
		out[k] = build(c)
	}
	return out
}
