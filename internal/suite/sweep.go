package suite

import (
	"sort"
	"strings"
	"unicode"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/llmgate/llmgate/internal/plan"
	"github.com/llmgate/llmgate/untrusted"
	"github.com/zclconf/go-cty/cty"
)

// sweepBlock is `sweep { key = [v1, v2, ...] ... }`: the scenario runs once
// per point of the cross product of its keys.
type sweepBlock struct {
	Body     hcl.Body  `hcl:",remain"`
	DefRange hcl.Range `hcl:",def_range"`
}

// sweepKey is one key of a sweep and its values.
type sweepKey struct {
	name   string
	values []cty.Value
	// bad is set when a value was rejected; the scenario is then not expanded.
	bad bool
}

// numericSweepKeys must sweep over numbers: they feed load and workload
// knobs or numeric server flags.
var numericSweepKeys = []string{
	"concurrency", "rate", "burstiness", "requests", "warmup", "input_tokens", "output_tokens",
	"prefix_tokens", "prefix_groups", "turns", "range_ratio", "gpu_memory_utilization",
	"max_num_seqs", "max_num_batched_tokens", "max_model_len", "tensor_parallel_size",
}

// maxSweepRuns bounds the runs one sweep expands to; a larger cross product
// is almost surely a mistake (and would take days on a GPU).
const maxSweepRuns = 1000

// decodeSweep evaluates a sweep block's keys in source order.
func (l *loader) decodeSweep(b *sweepBlock) []sweepKey {
	attrs, d := b.Body.JustAttributes()
	l.diags = append(l.diags, d...)
	list := make([]*hcl.Attribute, 0, len(attrs))
	for _, a := range attrs {
		list = append(list, a)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Range.Start.Byte < list[j].Range.Start.Byte })
	if len(list) == 0 && !d.HasErrors() {
		l.errorf(b.DefRange.Ptr(), nil, "Empty sweep",
			"A sweep needs at least one key with a list of values, like sweep { concurrency = [1, 8, 32] }.")
		return nil
	}
	ev := l.evaluator(nil)
	var keys []sweepKey
	for _, a := range list {
		v, ok := ev.value(a)
		if !ok {
			keys = append(keys, sweepKey{name: a.Name, bad: true})
			continue
		}
		ty := v.Type()
		if !ty.IsListType() && !ty.IsTupleType() && !ty.IsSetType() {
			ev.errorAt(a, "Sweep values of the wrong type", "%s must be a list of values to sweep over, like [1, 8, 32], not %s.", a.Name, friendlyType(ty))
			keys = append(keys, sweepKey{name: a.Name, bad: true})
			continue
		}
		if v.LengthInt() == 0 {
			ev.errorAt(a, "Empty sweep", "%s has no values; list at least one, like [1, 8, 32].", a.Name)
			keys = append(keys, sweepKey{name: a.Name, bad: true})
			continue
		}
		k := sweepKey{name: a.Name}
		var elemTy cty.Type
		seen := map[string]bool{}
		bad := false
		i := 0
		for it := v.ElementIterator(); it.Next(); i++ {
			_, el := it.Element()
			elAttr := elementAttr(a, i)
			text, prim := scalarText(el)
			switch {
			case !prim:
				ev.errorAt(elAttr, "Sweep values of the wrong type", "%s values must be numbers, strings or bools, not %s.", a.Name, friendlyType(el.Type()))
				bad = true
				continue
			case i > 0 && el.Type() != elemTy:
				ev.errorAt(elAttr, "Sweep values of the wrong type", "%s mixes %s and %s; every value of a sweep key must have the same type.", a.Name, friendlyType(elemTy), friendlyType(el.Type()))
				bad = true
				continue
			case contains(numericSweepKeys, a.Name) && el.Type() != cty.Number:
				ev.errorAt(elAttr, "Sweep values of the wrong type", "%s values must be numbers, not %s.", a.Name, friendlyType(el.Type()))
				bad = true
				continue
			case strings.ContainsAny(text, runNameSeparators) || strings.IndexFunc(text, unicode.IsControl) >= 0 || strings.IndexFunc(text, untrusted.IsBidi) >= 0:
				ev.errorAt(elAttr, "Unusable sweep value",
					"%s value %q holds a bracket, comma, equals sign, line break, control character or bidirectional control (which makes a name read other than it is); runs are named scenario[key=value,...], so such a value would make the name ambiguous and break the results table. Use a value without them.",
					a.Name, text)
				bad = true
				continue
			case len(text) > maxSweepValueBytes:
				ev.errorAt(elAttr, "Unusable sweep value", "%s value of %d bytes: a sweep value names a run, at most %d bytes.", a.Name, len(text), maxSweepValueBytes)
				bad = true
				continue
			case seen[text]:
				ev.errorAt(elAttr, "Duplicate sweep value", "%s lists %s twice; each sweep point must be distinct.", a.Name, text)
				bad = true
				continue
			}
			elemTy = el.Type()
			seen[text] = true
			if a.Name == "gpu_memory_utilization" {
				if msg := checkGPUMemoryUtilization(text); msg != "" {
					ev.errorAt(elAttr, "Invalid gpu_memory_utilization", "%s", strings.Replace(msg, "--gpu-memory-utilization", "gpu_memory_utilization", 1))
					bad = true
				}
			}
			k.values = append(k.values, el)
		}
		k.bad = bad
		keys = append(keys, k)
	}
	total := 1
	for _, k := range keys {
		if n := len(k.values); n > 0 {
			total *= n
		}
		if total > maxSweepRuns {
			l.errorf(b.DefRange.Ptr(), nil, "Sweep too large",
				"This sweep's cross product has more than %d points; split it into several scenarios or fewer values.", maxSweepRuns)
			keys[0].bad = true
			break
		}
	}
	return keys
}

// elementAttr returns an attribute whose value range is the i-th element of
// a's list literal, so a diagnostic can point at the offending value.
func elementAttr(a *hcl.Attribute, i int) *hcl.Attribute {
	if tup, ok := a.Expr.(*hclsyntax.TupleConsExpr); ok && i < len(tup.Exprs) {
		return &hcl.Attribute{Name: a.Name, Expr: tup.Exprs[i], Range: a.Range, NameRange: a.NameRange}
	}
	return a
}

// sweepValue is one sweep key's value at a point: the Param a run
// records, and the value its expressions see as sweep.<key>.
type sweepValue struct {
	plan.Param
	value cty.Value
}

// params is the point's Params, as the run records them.
func params(point []sweepValue) []plan.Param {
	if len(point) == 0 {
		return nil
	}
	out := make([]plan.Param, len(point))
	for i, v := range point {
		out[i] = v.Param
	}
	return out
}

// points returns the cross product of the keys' values, the first key
// varying slowest.
func points(keys []sweepKey) [][]sweepValue {
	out := [][]sweepValue{nil}
	for _, k := range keys {
		var next [][]sweepValue
		for _, p := range out {
			for _, v := range k.values {
				text, _ := scalarText(v)
				q := append(append([]sweepValue(nil), p...), sweepValue{plan.Param{Key: k.name, Text: text}, v})
				next = append(next, q)
			}
		}
		out = next
	}
	return out
}

// maxSweepValueBytes bounds a sweep value, which becomes part of run names.
const maxSweepValueBytes = 128

// runNameSeparators are the characters runName gives meaning to; a sweep
// value may not hold them.
const runNameSeparators = "[],="

// runName is "scenario" or "scenario[key=value,...]".
func runName(scenario string, params []plan.Param) string {
	if len(params) == 0 {
		return scenario
	}
	parts := make([]string, len(params))
	for i, p := range params {
		parts[i] = p.Key + "=" + p.Text
	}
	return scenario + "[" + strings.Join(parts, ",") + "]"
}

// sweepObject is the value of `sweep` at one point.
func sweepObject(point []sweepValue) cty.Value {
	m := make(map[string]cty.Value, len(point))
	for _, p := range point {
		m[p.Key] = p.value
	}
	return cty.ObjectVal(m)
}
