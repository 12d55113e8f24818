package suite

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/llmgate/llmgate/internal/plan"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// evaluator evaluates attributes in one context and converts them to Go
// values, collecting every problem as a diagnostic that points at the source.
type evaluator struct {
	ctx   *hcl.EvalContext
	scope *scope
	diags *hcl.Diagnostics
}

// errorAt records an error whose subject is attr's value and whose context is the whole attribute.
func (e *evaluator) errorAt(attr *hcl.Attribute, summary, format string, a ...any) {
	*e.diags = append(*e.diags, attrDiag(hcl.DiagError, attr, summary, fmt.Sprintf(format, a...)))
}

// warnAt records a warning about attr.
func (e *evaluator) warnAt(attr *hcl.Attribute, summary, format string, a ...any) {
	*e.diags = append(*e.diags, attrDiag(hcl.DiagWarning, attr, summary, fmt.Sprintf(format, a...)))
}

func attrDiag(sev hcl.DiagnosticSeverity, attr *hcl.Attribute, summary, detail string) *hcl.Diagnostic {
	return &hcl.Diagnostic{
		Severity: sev,
		Summary:  summary,
		Detail:   detail,
		Subject:  attr.Expr.Range().Ptr(),
		Context:  attr.Range.Ptr(),
	}
}

// value evaluates attr; ok is false when attr is absent, null, or broken
// (in which case the problem is already recorded).
func (e *evaluator) value(attr *hcl.Attribute) (cty.Value, bool) {
	if attr == nil {
		return cty.NilVal, false
	}
	if e.scope != nil {
		if d := e.scope.checkRefs(attr.Expr, attr.Range); len(d) > 0 {
			*e.diags = append(*e.diags, d...)
			return cty.NilVal, false
		}
	}
	v, d := attr.Expr.Value(e.ctx)
	*e.diags = append(*e.diags, d...)
	if d.HasErrors() || v.IsNull() {
		return cty.NilVal, false
	}
	if !v.IsWhollyKnown() {
		return cty.NilVal, false
	}
	v, _ = v.Unmark()
	return v, true
}

func (e *evaluator) convert(attr *hcl.Attribute, v cty.Value, ty cty.Type, what string) (cty.Value, bool) {
	out, err := convert.Convert(v, ty)
	if err != nil {
		e.errorAt(attr, "Incorrect attribute value type", "%s must be %s: %s.", attr.Name, what, err)
		return cty.NilVal, false
	}
	return out, true
}

// str evaluates attr as a string.
func (e *evaluator) str(attr *hcl.Attribute) (string, bool) {
	v, ok := e.value(attr)
	if !ok {
		return "", false
	}
	if v, ok = e.convert(attr, v, cty.String, "a string"); !ok {
		return "", false
	}
	return v.AsString(), true
}

// num evaluates attr as a finite number.
func (e *evaluator) num(attr *hcl.Attribute) (float64, bool) {
	v, ok := e.value(attr)
	if !ok {
		return 0, false
	}
	if v.Type() == cty.String {
		if advice := numberAttributeAdvice(attr, v.AsString()); advice != "" {
			e.errorAt(attr, "Number with a unit", "%s", advice)
			return 0, false
		}
	}
	if v.Type() != cty.Number {
		e.errorAt(attr, "Incorrect attribute value type", "%s must be a number, not %s.", attr.Name, friendlyType(v.Type()))
		return 0, false
	}
	f, _ := v.AsBigFloat().Float64()
	if math.IsInf(f, 0) || math.IsNaN(f) {
		e.errorAt(attr, "Invalid number", "%s must be a finite number.", attr.Name)
		return 0, false
	}
	return f, true
}

// int evaluates attr as a whole number.
func (e *evaluator) int(attr *hcl.Attribute) (int, bool) {
	f, ok := e.num(attr)
	if !ok {
		return 0, false
	}
	if math.Abs(f) > 1<<53 {
		// exactness ends at 2^53: do not print a rounded echo of the value
		exact := plan.FormatNumber(f)
		if v, ok := e.value(attr); ok && v.Type() == cty.Number && v.IsKnown() && !v.IsNull() {
			exact = v.AsBigFloat().Text('f', -1)
		}
		e.errorAt(attr, "Number too large", "%s = %s is beyond any sensible value; it must be a whole number of at most 2^53 (9007199254740992).", attr.Name, exact)
		return 0, false
	}
	if f != math.Trunc(f) {
		e.errorAt(attr, "Invalid number", "%s must be a whole number, not %s.", attr.Name, plan.FormatNumber(f))
		return 0, false
	}
	return int(f), true
}

// boolean evaluates attr as a bool.
func (e *evaluator) boolean(attr *hcl.Attribute) (bool, bool) {
	v, ok := e.value(attr)
	if !ok {
		return false, false
	}
	if v.Type() != cty.Bool {
		e.errorAt(attr, "Incorrect attribute value type", "%s must be true or false, not %s.", attr.Name, friendlyType(v.Type()))
		return false, false
	}
	return v.True(), true
}

// duration evaluates attr as a duration string such as "30s" or "3m".
func (e *evaluator) duration(attr *hcl.Attribute) (time.Duration, bool) {
	v, ok := e.value(attr)
	if !ok {
		return 0, false
	}
	if v.Type() != cty.String {
		e.errorAt(attr, "Invalid duration", "%s must be a duration string with a unit, like \"30s\", \"3m\" or \"1h30m\".", attr.Name)
		return 0, false
	}
	d, err := time.ParseDuration(v.AsString())
	if err != nil {
		e.errorAt(attr, "Invalid duration", "%s = %q is not a duration; write it with a unit, like \"30s\", \"3m\" or \"1h30m\".", attr.Name, v.AsString())
		return 0, false
	}
	if d <= 0 {
		e.errorAt(attr, "Invalid duration", "%s must be longer than zero.", attr.Name)
		return 0, false
	}
	return d, true
}

// strList evaluates attr as a list of strings; numbers and bools are
// converted, numbers formatted minimally (0.7 becomes "0.7").
func (e *evaluator) strList(attr *hcl.Attribute) ([]string, bool) {
	v, ok := e.value(attr)
	if !ok {
		return nil, false
	}
	if !v.Type().IsListType() && !v.Type().IsTupleType() && !v.Type().IsSetType() {
		e.errorAt(attr, "Incorrect attribute value type", "%s must be a list of strings, like [\"--max-num-seqs\", \"256\"].", attr.Name)
		return nil, false
	}
	var out []string
	for it := v.ElementIterator(); it.Next(); {
		_, el := it.Element()
		s, ok := scalarText(el)
		if !ok {
			e.errorAt(attr, "Incorrect attribute value type", "every element of %s must be a string, number or bool, not %s.", attr.Name, friendlyType(el.Type()))
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// strMap evaluates attr as a map of strings.
func (e *evaluator) strMap(attr *hcl.Attribute) (map[string]string, bool) {
	v, ok := e.value(attr)
	if !ok {
		return nil, false
	}
	if !v.Type().IsObjectType() && !v.Type().IsMapType() {
		e.errorAt(attr, "Incorrect attribute value type", "%s must be a map of strings, like { KEY = \"value\" }.", attr.Name)
		return nil, false
	}
	out := map[string]string{}
	for it := v.ElementIterator(); it.Next(); {
		k, el := it.Element()
		s, ok := scalarText(el)
		if !ok {
			e.errorAt(attr, "Incorrect attribute value type", "%s[%q] must be a string, not %s.", attr.Name, k.AsString(), friendlyType(el.Type()))
			return nil, false
		}
		out[k.AsString()] = s
	}
	return out, true
}

// scalarText formats a known primitive value as text: strings as they are,
// numbers minimally, bools as true/false.
func scalarText(v cty.Value) (string, bool) {
	if v.IsNull() || !v.IsKnown() {
		return "", false
	}
	switch v.Type() {
	case cty.String:
		return v.AsString(), true
	case cty.Number:
		return formatBigNumber(v.AsBigFloat()), true
	case cty.Bool:
		return strconv.FormatBool(v.True()), true
	}
	return "", false
}

// formatBigNumber formats n minimally: 0.7 → "0.7", 16 → "16".
func formatBigNumber(n *big.Float) string {
	if n.IsInt() {
		if i, acc := n.Int64(); acc == big.Exact {
			return strconv.FormatInt(i, 10)
		}
		return n.Text('f', 0)
	}
	f, _ := n.Float64()
	return plan.FormatNumber(f)
}

// formatNumber formats f minimally.

// friendlyType names a cty type the way a suite author thinks of it.
func friendlyType(ty cty.Type) string {
	switch {
	case ty == cty.String:
		return "a string"
	case ty == cty.Number:
		return "a number"
	case ty == cty.Bool:
		return "a bool"
	case ty.IsListType(), ty.IsTupleType(), ty.IsSetType():
		return "a list"
	case ty.IsMapType(), ty.IsObjectType():
		return "an object"
	}
	return ty.FriendlyName()
}
