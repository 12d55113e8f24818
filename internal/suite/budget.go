package suite

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// Bounds on what a suite's expressions may build. checkLimits bounds the
// source; these bound evaluation, where a few tokens can ask for a lot:
// setproduct(range(1024), range(1024), range(20)) is 20 million tuples
// (6 GB and over a minute before), two nested for expressions over
// range(10000) a hundred million values, and a template that interpolates
// a large file a thousand times gigabytes. Real suites build a few hundred
// values.
const (
	// MaxValueElements bounds the values (elements of lists, sets, maps,
	// tuples and objects, however deep) one expression or function may
	// produce.
	MaxValueElements = 50_000
	// MaxValueBytes bounds the string bytes one value may hold.
	MaxValueBytes = maxFileSize
	// MaxEvalElements and MaxEvalBytes bound what one load of a suite (or
	// one evaluation of a run's asserts) may build in all: each function's
	// result, each for expression's collection and elements, each template
	// part counts.
	MaxEvalElements = 200_000
	MaxEvalBytes    = 64 << 20
	// MaxEvalTime bounds the time a suite's evaluation takes.
	MaxEvalTime = 10 * time.Second
)

// budgetFunc is the function the evaluation guard wraps expressions in
// (guardExpressions): it charges the value to the budget and returns it.
const budgetFunc = "llmgate_limit"

// errBudget marks a function error that is a bound, not a mistake in an
// argument; explainBudget turns its diagnostic into a plain one.
var errBudget = errors.New("evaluation too large")

// evalBudget is what one load (or one assert evaluation) may still spend.
// Functions and guarded expressions charge it; it is safe for concurrent use.
type evalBudget struct {
	mu              sync.Mutex
	elements, bytes int64
	deadline        time.Time // zero: no time bound (after the load)
}

func newEvalBudget() *evalBudget { return &evalBudget{} }

// start begins a timed evaluation with the whole budget; stop ends its
// time bound.
func (b *evalBudget) start() {
	b.mu.Lock()
	b.elements, b.bytes, b.deadline = 0, 0, time.Now().Add(MaxEvalTime)
	b.mu.Unlock()
}

func (b *evalBudget) stop() {
	b.mu.Lock()
	b.deadline = time.Time{}
	b.mu.Unlock()
}

// reset gives a later evaluation (a run's asserts) the whole budget again.
func (b *evalBudget) reset() {
	if b == nil {
		return
	}
	b.mu.Lock()
	b.elements, b.bytes = 0, 0
	b.mu.Unlock()
}

// spent refuses to go on once the budget is spent or the time is up: HCL
// goes on evaluating a for expression's elements after one fails, so each
// further call must fail at once instead of doing its work first.
func (b *evalBudget) spent() error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case !b.deadline.IsZero() && time.Now().After(b.deadline):
		return budgetErr("evaluating the suite took more than %s", MaxEvalTime)
	case b.elements > MaxEvalElements:
		return budgetErr("the suite's expressions built more than %d values in all", MaxEvalElements)
	case b.bytes > MaxEvalBytes:
		return budgetErr("the suite's expressions built more than %d MiB of text in all", MaxEvalBytes>>20)
	}
	return nil
}

// charge spends v's size, refusing a value over the per-value bounds, a
// total over the budget and a load past its time.
func (b *evalBudget) charge(v cty.Value) error {
	if b == nil {
		return nil
	}
	n, size := measure(v)
	if n > MaxValueElements {
		return budgetErr("a value of more than %d elements", MaxValueElements)
	}
	if size > MaxValueBytes {
		return budgetErr("a value of more than %d MiB of text", MaxValueBytes>>20)
	}
	b.mu.Lock()
	b.elements += n
	b.bytes += size
	b.mu.Unlock()
	return b.spent()
}

func budgetErr(format string, a ...any) error {
	return &budgetError{asked: fmt.Sprintf(format, a...) + "; a suite describes runs, not data (compute large values outside it and pass them with --var or a dataset file)"}
}

// budgetError is a bound's error (errBudget): what the expression asked
// for, and what to do instead.
type budgetError struct{ asked string }

func (e *budgetError) Error() string { return errBudget.Error() + ": " + e.asked }

func (e *budgetError) Unwrap() error { return errBudget }

// measure counts v's elements and string bytes, however deep, stopping
// once either passes its per-value bound (so a value that shares one large
// part many times costs no more than the bound to measure).
func measure(v cty.Value) (elements, bytes int64) {
	var walk func(cty.Value)
	walk = func(v cty.Value) {
		if elements > MaxValueElements || bytes > MaxValueBytes || !v.IsKnown() || v.IsNull() {
			return
		}
		t := v.Type()
		switch {
		case t == cty.String:
			bytes += int64(len(v.AsString()))
		case t.IsListType() || t.IsSetType() || t.IsMapType() || t.IsTupleType() || t.IsObjectType():
			for it := v.ElementIterator(); it.Next(); {
				elements++
				_, e := it.Element()
				walk(e)
				if elements > MaxValueElements || bytes > MaxValueBytes {
					return
				}
			}
		}
	}
	walk(v)
	return elements, bytes
}

// guarded wraps every function so that it checks its arguments and what
// it is about to build before it runs (preflight), then charges its result
// to b.
func guarded(fns map[string]function.Function, b *evalBudget) map[string]function.Function {
	out := make(map[string]function.Function, len(fns)+1)
	for name, f := range fns {
		out[name] = guard(name, f, b)
	}
	out[budgetFunc] = function.New(&function.Spec{
		Description: "Charges a value to the evaluation budget and returns it.",
		Params:      []function.Parameter{{Name: "value", Type: cty.DynamicPseudoType, AllowNull: true, AllowUnknown: true, AllowDynamicType: true, AllowMarked: true}},
		Type:        func(args []cty.Value) (cty.Type, error) { return args[0].Type(), nil },
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			if err := b.spent(); err != nil {
				return cty.NilVal, err
			}
			return args[0], b.charge(args[0])
		},
	})
	return out
}

// guard is f with its preflight check and its result charged.
func guard(name string, f function.Function, b *evalBudget) function.Function {
	spec := &function.Spec{
		Description: f.Description(),
		Params:      f.Params(),
		VarParam:    f.VarParam(),
		Type: func(args []cty.Value) (cty.Type, error) {
			return f.ReturnTypeForValues(args)
		},
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			if err := b.spent(); err != nil {
				return cty.NilVal, err
			}
			if err := preflight(name, args); err != nil {
				return cty.NilVal, err
			}
			v, err := f.Call(args)
			if err != nil {
				return v, err
			}
			return v, b.charge(v)
		},
	}
	return function.New(spec)
}

// preflight refuses a call whose result would be over the per-value bounds
// before the function builds it: the functions whose result can be far
// larger than their arguments (range, setproduct, format widths, replace,
// regex_replace, indent, join), and any call whose arguments are already
// over them.
func preflight(name string, args []cty.Value) error {
	var n, size int64
	for _, a := range args {
		e, s := measure(a)
		n, size = n+e, size+s
	}
	if n > MaxValueElements || size > MaxValueBytes {
		return budgetErr("%s() was given more than %d elements or %d MiB of text", name, MaxValueElements, MaxValueBytes>>20)
	}
	known := func() bool {
		for _, a := range args {
			if !a.IsWhollyKnown() || a.IsNull() {
				return false
			}
		}
		return true
	}
	if !known() {
		return nil // the function itself says what is wrong, or returns unknown
	}
	over := func(elements, bytes float64) error {
		if elements > MaxValueElements {
			return budgetErr("%s() would build %.0f elements, more than %d", name, elements, MaxValueElements)
		}
		if bytes > MaxValueBytes {
			return budgetErr("%s() would build %.0f MiB of text, more than %d", name, bytes/(1<<20), MaxValueBytes>>20)
		}
		return nil
	}
	num := func(v cty.Value) float64 {
		if v.Type() != cty.Number {
			return 0
		}
		f, _ := v.AsBigFloat().Float64()
		return f
	}
	length := func(v cty.Value) float64 {
		if t := v.Type(); t.IsListType() || t.IsSetType() || t.IsMapType() || t.IsTupleType() {
			return float64(v.LengthInt())
		}
		return 0
	}
	str := func(v cty.Value) string {
		if v.Type() == cty.String {
			return v.AsString()
		}
		return ""
	}
	switch name {
	case "range":
		start, limit, step := 0.0, 0.0, 1.0
		switch len(args) {
		case 1:
			limit = num(args[0])
		case 2:
			start, limit = num(args[0]), num(args[1])
		case 3:
			start, limit, step = num(args[0]), num(args[1]), num(args[2])
		}
		if step != 0 {
			return over((limit-start)/step, 0)
		}
	case "setproduct":
		p := 1.0
		for _, a := range args {
			p *= length(a)
		}
		return over(p*float64(len(args)), 0)
	case "format", "formatlist":
		if len(args) > 0 {
			if w := widestVerb(str(args[0])); w > 0 {
				return over(0, w)
			}
		}
	case "replace":
		if len(args) == 3 {
			s, sub, rep := str(args[0]), str(args[1]), str(args[2])
			count := strings.Count(s, sub)
			return over(0, float64(len(s))+float64(count)*float64(len(rep)))
		}
	case "regex_replace":
		if len(args) == 3 {
			s, rep := str(args[0]), str(args[2])
			re, err := regexp.Compile(str(args[1]))
			if err != nil {
				return nil
			}
			longest, matches := 0, re.FindAllStringIndex(s, -1)
			for _, m := range matches {
				longest = max(longest, m[1]-m[0])
			}
			per := float64(len(rep)) + float64(strings.Count(rep, "$"))*float64(longest)
			return over(0, float64(len(s))+float64(len(matches))*per)
		}
	case "indent":
		if len(args) == 2 {
			return over(0, float64(len(str(args[1])))+num(args[0])*float64(strings.Count(str(args[1]), "\n")+1))
		}
	case "join":
		if len(args) > 1 {
			parts := 0.0
			for _, a := range args[1:] {
				parts += length(a)
			}
			return over(0, float64(size)+parts*float64(len(str(args[0]))))
		}
	}
	return nil
}

// verbWidth finds the widths and precisions of a format string's verbs.
var verbWidth = regexp.MustCompile(`%[-+# 0]*([0-9]*)(?:\.([0-9]*))?`)

// widestVerb is the largest width or precision in a format string's verbs
// (format("%999999999d", 1) would be a gigabyte), 0 when none is given.
func widestVerb(f string) float64 {
	w := 0.0
	for _, m := range verbWidth.FindAllStringSubmatch(f, -1) {
		for _, g := range m[1:] {
			if g == "" {
				continue
			}
			if n, err := strconv.ParseFloat(g, 64); err == nil {
				w = max(w, n)
			}
		}
	}
	return w
}

// guardExpressions rewrites body so that evaluation charges the budget
// where no function is called: each for expression's collection and each
// of its keys and elements, and each interpolated part of a template. Each
// such expression is wrapped in a call of budgetFunc over the same range.
func guardExpressions(body *hclsyntax.Body) {
	wrap := func(e hclsyntax.Expression) hclsyntax.Expression {
		if e == nil {
			return nil
		}
		if _, lit := e.(*hclsyntax.LiteralValueExpr); lit {
			return e
		}
		r := e.Range()
		return &hclsyntax.FunctionCallExpr{Name: budgetFunc, Args: []hclsyntax.Expression{e}, NameRange: r, OpenParenRange: r, CloseParenRange: r}
	}
	_ = hclsyntax.VisitAll(body, func(n hclsyntax.Node) hcl.Diagnostics {
		switch e := n.(type) {
		case *hclsyntax.ForExpr:
			e.CollExpr, e.KeyExpr, e.ValExpr = wrap(e.CollExpr), wrap(e.KeyExpr), wrap(e.ValExpr)
		case *hclsyntax.TemplateExpr:
			for i, p := range e.Parts {
				e.Parts[i] = wrap(p)
			}
		case *hclsyntax.TemplateWrapExpr:
			e.Wrapped = wrap(e.Wrapped)
		}
		return nil
	})
}

// explainBudget rewrites the diagnostics of a bound (a budgetError that a
// function call returned, as HCL's diagnostic keeps it) from "Error in
// function call" into what happened.
func explainBudget(diags hcl.Diagnostics) hcl.Diagnostics {
	for _, d := range diags {
		call, ok := hcl.DiagnosticExtra[hclsyntax.FunctionCallDiagExtra](d)
		var be *budgetError
		if !ok || !errors.As(call.FunctionCallError(), &be) {
			continue
		}
		d.Summary = "Evaluation too large"
		d.Detail = "This expression asks for too much: " + be.asked + "."
	}
	return diags
}
