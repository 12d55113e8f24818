package suite

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// newEvalContext is the one place a suite's evaluation context is built:
// var.* plus the go-cty stdlib functions, env() and file(). Scenario
// expressions evaluate in a child context that adds sweep.*, and asserts in
// one that adds the metric roots. files is where file() may read (nil: no
// file at all); env answers env(), or refuses a name; every function and
// guarded expression charges budget (guarded, guardExpressions).
func newEvalContext(files *fileRoot, vars map[string]cty.Value, env func(string) (string, error), budget *evalBudget) *hcl.EvalContext {
	ctx := &hcl.EvalContext{
		Variables: map[string]cty.Value{},
		Functions: guarded(functions(files, env), budget),
	}
	if vars != nil {
		ctx.Variables["var"] = cty.ObjectVal(vars)
	}
	return ctx
}

// functions returns every function a suite may call.
func functions(files *fileRoot, env func(string) (string, error)) map[string]function.Function {
	return map[string]function.Function{
		"abs":           stdlib.AbsoluteFunc,
		"ceil":          stdlib.CeilFunc,
		"chomp":         stdlib.ChompFunc,
		"coalesce":      stdlib.CoalesceFunc,
		"coalescelist":  stdlib.CoalesceListFunc,
		"compact":       stdlib.CompactFunc,
		"concat":        stdlib.ConcatFunc,
		"contains":      stdlib.ContainsFunc,
		"distinct":      stdlib.DistinctFunc,
		"element":       stdlib.ElementFunc,
		"flatten":       stdlib.FlattenFunc,
		"floor":         stdlib.FloorFunc,
		"format":        stdlib.FormatFunc,
		"formatlist":    stdlib.FormatListFunc,
		"indent":        stdlib.IndentFunc,
		"int":           stdlib.IntFunc,
		"join":          stdlib.JoinFunc,
		"jsondecode":    stdlib.JSONDecodeFunc,
		"jsonencode":    stdlib.JSONEncodeFunc,
		"keys":          stdlib.KeysFunc,
		"length":        stdlib.LengthFunc,
		"log":           stdlib.LogFunc,
		"lookup":        stdlib.LookupFunc,
		"lower":         stdlib.LowerFunc,
		"max":           stdlib.MaxFunc,
		"merge":         stdlib.MergeFunc,
		"min":           stdlib.MinFunc,
		"parseint":      stdlib.ParseIntFunc,
		"pow":           stdlib.PowFunc,
		"range":         stdlib.RangeFunc,
		"regex":         stdlib.RegexFunc,
		"regexall":      stdlib.RegexAllFunc,
		"regex_replace": stdlib.RegexReplaceFunc,
		"replace":       stdlib.ReplaceFunc,
		"reverse":       stdlib.ReverseListFunc,
		"setproduct":    stdlib.SetProductFunc,
		"signum":        stdlib.SignumFunc,
		"slice":         stdlib.SliceFunc,
		"sort":          stdlib.SortFunc,
		"split":         stdlib.SplitFunc,
		"strlen":        stdlib.StrlenFunc,
		"strrev":        stdlib.ReverseFunc,
		"substr":        stdlib.SubstrFunc,
		"title":         stdlib.TitleFunc,
		"trim":          stdlib.TrimFunc,
		"trimprefix":    stdlib.TrimPrefixFunc,
		"trimspace":     stdlib.TrimSpaceFunc,
		"trimsuffix":    stdlib.TrimSuffixFunc,
		"upper":         stdlib.UpperFunc,
		"values":        stdlib.ValuesFunc,
		"zipmap":        stdlib.ZipmapFunc,
		"env":           envFunc(env),
		"file":          fileFunc(files),
	}
}

// envFunc returns env(name): the environment variable's value, or "" when
// it is unset; env may refuse a name.
func envFunc(env func(string) (string, error)) function.Function {
	return function.New(&function.Spec{
		Description: "Returns the value of an environment variable, or an empty string when it is unset.",
		Params:      []function.Parameter{{Name: "name", Type: cty.String}},
		Type:        function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			v, err := env(args[0].AsString())
			if err != nil {
				return cty.NilVal, err
			}
			return cty.StringVal(v), nil
		},
	})
}

// fileFunc returns file(path): the contents of a regular file inside the
// suite's tree (fileRoot), relative to the suite's directory.
func fileFunc(files *fileRoot) function.Function {
	return function.New(&function.Spec{
		Description: "Returns the contents of a file of the suite's repository (or directory); relative paths start at the suite file's directory.",
		Params:      []function.Parameter{{Name: "path", Type: cty.String}},
		Type:        function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			b, err := files.read(args[0].AsString())
			if err != nil {
				return cty.NilVal, err
			}
			return cty.StringVal(string(b)), nil
		},
	})
}
