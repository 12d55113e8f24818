package suite

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// maxFileSize bounds what file() reads, so a typo such as file("/dev/zero")
// fails instead of exhausting memory.
const maxFileSize = 16 << 20

// newEvalContext is the one place a suite's evaluation context is built:
// var.* plus the go-cty stdlib functions, env() and file(). Scenario
// expressions evaluate in a child context that adds sweep.*, and asserts in
// one that adds the metric roots.
func newEvalContext(dir string, vars map[string]cty.Value, getenv func(string) string) *hcl.EvalContext {
	ctx := &hcl.EvalContext{
		Variables: map[string]cty.Value{},
		Functions: functions(dir, getenv),
	}
	if vars != nil {
		ctx.Variables["var"] = cty.ObjectVal(vars)
	}
	return ctx
}

// functions returns every function a suite may call.
func functions(dir string, getenv func(string) string) map[string]function.Function {
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
		"env":           envFunc(getenv),
		"file":          fileFunc(dir),
	}
}

// envFunc returns env(name): the environment variable's value, or "" when unset.
func envFunc(getenv func(string) string) function.Function {
	return function.New(&function.Spec{
		Description: "Returns the value of an environment variable, or an empty string when it is unset.",
		Params:      []function.Parameter{{Name: "name", Type: cty.String}},
		Type:        function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			return cty.StringVal(getenv(args[0].AsString())), nil
		},
	})
}

// fileFunc returns file(path): the contents of a file, relative to the suite's directory.
func fileFunc(dir string) function.Function {
	return function.New(&function.Spec{
		Description: "Returns the contents of a file; relative paths start at the suite file's directory.",
		Params:      []function.Parameter{{Name: "path", Type: cty.String}},
		Type:        function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			p := args[0].AsString()
			if !filepath.IsAbs(p) {
				p = filepath.Join(dir, p)
			}
			f, err := os.Open(p)
			if err != nil {
				return cty.NilVal, fmt.Errorf("read %s: %w", p, err)
			}
			defer f.Close()
			b, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
			if err != nil {
				return cty.NilVal, fmt.Errorf("read %s: %w", p, err)
			}
			if len(b) > maxFileSize {
				return cty.NilVal, fmt.Errorf("%s is larger than %d MiB", p, maxFileSize>>20)
			}
			return cty.StringVal(string(b)), nil
		},
	})
}
