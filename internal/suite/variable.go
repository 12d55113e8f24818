package suite

import (
	"fmt"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// variableBlock is `variable "name" { default = ..., description = "..." }`.
type variableBlock struct {
	Default     *hcl.Attribute `hcl:"default,optional"`
	Description *hcl.Attribute `hcl:"description,optional"`
	// Sensitive marks the value a secret: llmgate masks it wherever it
	// prints or writes it (and registers it with ::add-mask::).
	Sensitive *hcl.Attribute `hcl:"sensitive,optional"`
}

// resolveVariables computes each variable's value: --var wins over
// LLMGATE_VAR_<name>, which wins over the default. Defaults may call
// functions but not reference other variables. A --var that names no
// declared variable is an error, or a warning under policy "warn".
func (l *loader) resolveVariables(blocks hcl.Blocks, policy string) map[string]cty.Value {
	vals := map[string]cty.Value{}
	seen := map[string]*hcl.Block{}
	fnCtx := newEvalContext(l.files, nil, l.envFunc, l.budget)
	declared := map[string]bool{}
	var sensitiveNames []string // their values are secrets, whatever sets them
	for _, b := range blocks {
		declared[b.Labels[0]] = true
	}
	for _, b := range blocks {
		name := b.Labels[0]
		if !hclsyntaxValidIdentifier(name) {
			l.errorf(b.LabelRanges[0].Ptr(), b.DefRange.Ptr(), "Invalid variable name",
				"%q is not a valid name; use letters, digits, underscores and dashes, starting with a letter.", name)
			continue
		}
		if prev, dup := seen[name]; dup {
			l.duplicate(b, prev, "variable")
			continue
		}
		seen[name] = b
		l.varNames = append(l.varNames, name)
		var vb variableBlock
		l.diags = append(l.diags, decodeBody(b.Body, &vb)...)
		if vb.Sensitive != nil {
			ev := &evaluator{ctx: fnCtx, diags: &l.diags, scope: &scope{}}
			if sensitive, ok := ev.boolean(vb.Sensitive); ok && sensitive {
				sensitiveNames = append(sensitiveNames, name)
			}
		}

		var def cty.Value
		hasDef := false
		if vb.Default != nil && l.defaultUsesVariables(name, vb.Default, declared) {
			vals[name] = cty.DynamicVal
			continue
		}
		if vb.Default != nil {
			ev := &evaluator{ctx: fnCtx, diags: &l.diags, scope: &scope{}}
			if v, ok := ev.value(vb.Default); ok {
				def, hasDef = v, true
			} else {
				vals[name] = cty.DynamicVal
				continue
			}
		}
		override, from := l.opts.Vars[name], "--var "+name
		hasOverride := false
		if _, ok := l.opts.Vars[name]; ok {
			hasOverride = true
		} else if s := l.getenv("LLMGATE_VAR_" + name); s != "" {
			override, from, hasOverride = s, "LLMGATE_VAR_"+name, true
		}
		switch {
		case hasOverride && hasDef && def.Type().IsPrimitiveType() && def.Type() != cty.String:
			v, err := convert.Convert(cty.StringVal(override), def.Type())
			if err != nil {
				l.errorf(b.DefRange.Ptr(), nil, "Invalid value for variable",
					"%s = %q: variable %q takes %s like its default: %s.", from, override, name, friendlyType(def.Type()), err)
				vals[name] = cty.DynamicVal
				continue
			}
			vals[name] = v
		case hasOverride:
			vals[name] = cty.StringVal(override)
		case hasDef:
			vals[name] = def
		default:
			l.errorf(b.DefRange.Ptr(), nil, "No value for variable",
				"Variable %q has no default; set it with --var %s=VALUE or the environment variable LLMGATE_VAR_%s.", name, name, name)
			vals[name] = cty.DynamicVal
		}
	}
	for _, name := range sensitiveNames {
		l.secrets = append(l.secrets, stringLeaves(vals[name])...)
	}
	var unknown []string
	for name := range l.opts.Vars {
		if _, ok := seen[name]; !ok {
			unknown = append(unknown, name)
		}
	}
	sort.Strings(unknown)
	for _, name := range unknown {
		l.undeclaredVar(name, policy)
	}
	return vals
}

// undeclaredVar reports --var name, which names no variable of the suite:
// an error (a typo would otherwise run the suite on the default, and in CI
// gate the default), a warning where the suite says undeclared_vars = "warn".
func (l *loader) undeclaredVar(name, policy string) {
	hint := didYouMean(name, l.varNames)
	if policy == undeclaredVarsWarn {
		l.diags = append(l.diags, &hcl.Diagnostic{
			Severity: hcl.DiagWarning,
			Summary:  "Value for undeclared variable",
			Detail: fmt.Sprintf("--var %s was given but %s declares no variable %q; it is ignored (the suite says undeclared_vars = \"warn\").%s",
				name, l.filename, name, hint),
		})
		return
	}
	l.diags = append(l.diags, &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Value for undeclared variable",
		Detail: fmt.Sprintf("--var %s was given but %s declares no variable %q.%s Without the value the suite would run on its defaults. Fix the name, declare the variable, or, for a suite meant to take variables it does not use, write undeclared_vars = \"warn\" in its suite block.",
			name, l.filename, name, hint),
	})
}

// defaultUsesVariables reports (and explains) a default that refers to a
// variable: defaults are evaluated before any variable has a value, so
// even a declared one cannot be used there.
func (l *loader) defaultUsesVariables(name string, def *hcl.Attribute, declared map[string]bool) bool {
	found := false
	for _, tr := range def.Expr.Variables() {
		if tr.RootName() != "var" {
			continue
		}
		found = true
		other := ""
		if len(tr) > 1 {
			if a, ok := tr[1].(hcl.TraverseAttr); ok {
				other = a.Name
			}
		}
		why := fmt.Sprintf("variable %q is declared, but", other)
		if !declared[other] {
			why = fmt.Sprintf("there is no variable %q, and in any case", other)
		}
		l.errorf(tr.SourceRange().Ptr(), def.Range.Ptr(), "Variable in a variable's default",
			"The default of variable %q refers to var.%s: %s a default is evaluated before any variable has a value. Repeat the value, or set %s with --var %s=VALUE.",
			name, other, why, name, name)
	}
	return found
}

// stringLeaves is every known string in v (v itself, or the elements of
// its lists, maps and objects, however deep), as a sensitive variable's
// secrets.
func stringLeaves(v cty.Value) []string {
	if !v.IsKnown() || v.IsNull() {
		return nil
	}
	switch t := v.Type(); {
	case t == cty.String:
		return []string{v.AsString()}
	case t.IsPrimitiveType():
		return nil
	case t.IsCollectionType() || t.IsObjectType() || t.IsTupleType():
		var out []string
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			out = append(out, stringLeaves(e)...)
		}
		return out
	}
	return nil
}
