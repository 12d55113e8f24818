package suite

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// suiteBlock is `suite "name" { description = "...", undeclared_vars = "warn" }`.
type suiteBlock struct {
	Description *hcl.Attribute `hcl:"description,optional"`
	// UndeclaredVars is what a --var naming no variable of the suite is:
	// "error" (the default) or "warn" (ignored with a warning). It is read
	// before any variable has a value, so it is a literal string.
	UndeclaredVars *hcl.Attribute `hcl:"undeclared_vars,optional"`
}

// Policies for a --var that names no declared variable.
const (
	undeclaredVarsError = "error"
	undeclaredVarsWarn  = "warn"
)

// undeclaredVarsPolicy reads undeclared_vars from the first suite block
// (the duplicates are reported by decodeSuiteBlock), before the variables
// are resolved: "error" without it, or when it is not a valid literal
// (which is reported).
func (l *loader) undeclaredVarsPolicy(blocks hcl.Blocks) string {
	if len(blocks) == 0 {
		return undeclaredVarsError
	}
	attrs, _ := blocks[0].Body.JustAttributes() // decodeSuiteBlock reports a body that has blocks
	a, ok := attrs["undeclared_vars"]
	if !ok {
		return undeclaredVarsError
	}
	v, diags := a.Expr.Value(nil)
	if !diags.HasErrors() && v.IsKnown() && !v.IsNull() && v.Type() == cty.String {
		switch s := v.AsString(); s {
		case undeclaredVarsError, undeclaredVarsWarn:
			return s
		}
	}
	l.errorf(a.Expr.Range().Ptr(), a.Range.Ptr(), "Invalid undeclared_vars",
		`undeclared_vars is "error" (the default: a --var that names no variable of the suite stops it) or "warn" (such a --var is ignored with a warning), written as a literal string: it is read before any variable has a value.`)
	return undeclaredVarsError
}
