package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/llmgate/llmgate/suite"
)

func init() {
	register(&command{
		name:    "validate",
		summary: "check suite files for mistakes without running anything",
		usage:   "[--plan] [--var NAME=VALUE]... FILE...",
		help: `
Validate reads each suite, reports every mistake it finds (unknown blocks
and attributes, impossible values, misspelled metrics, undefined targets and
variables) with the file, line and column first and a snippet of the source,
and exits 2 if any file has an error. Nothing is started and no network is
touched, so it is cheap to run in a pre-commit hook or as a first CI step.

--plan also prints the runs each suite expands to (one per sweep point),
grouped by server start, with the target, the server args and the effective
load and workload of each run after defaults are applied.

Examples:

  llmgate validate scenarios/*.hcl
  llmgate validate --plan scenarios/memory-sweep.hcl
  llmgate validate --var image=vllm/vllm-openai:v0.11.0 perf/gate.hcl`,
		run: runValidate,
	})
}

// varFlag collects repeated --var NAME=VALUE flags.
type varFlag map[string]string

func (v varFlag) String() string { return "" }

func (v varFlag) Set(s string) error {
	name, val, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return fmt.Errorf("want NAME=VALUE, got %q", s)
	}
	v[name] = val
	return nil
}

func runValidate(ctx context.Context, e *env, args []string) error {
	fs := newFlags(commands["validate"], e)
	plan := fs.Bool("plan", false, "print the runs each suite expands to, grouped by server start")
	vars := varFlag{}
	fs.Var(vars, "var", "set the suite variable `NAME=VALUE` (repeatable; also LLMGATE_VAR_NAME in the environment)")
	files, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return usagef("validate needs at least one suite file (see llmgate help validate)")
	}
	failed := false
	for _, f := range files {
		s, diags := suite.Load(f, suite.Options{Vars: vars, Getenv: e.getenv})
		if len(diags) > 0 {
			if err := suite.WriteDiagnostics(e.stderr, s.Files, diags, validateColor(e)); err != nil {
				return err
			}
		}
		if diags.HasErrors() {
			failed = true
			fmt.Fprintf(e.stderr, "%s: %s\n", f, countErrors(diags))
			continue
		}
		p := s.Plan()
		fmt.Fprintf(e.stdout, "%s: ok (%d scenario(s), %d run(s))\n", f, len(s.Scenarios), len(p.Runs()))
		if *plan {
			if err := p.WriteText(e.stdout); err != nil {
				return err
			}
			fmt.Fprintln(e.stdout)
		}
	}
	if failed {
		return errReported{exitUsage}
	}
	return nil
}

// validateColor reports whether diagnostics should be highlighted: stderr is
// a terminal and NO_COLOR is unset.
func validateColor(e *env) bool {
	f, ok := e.stderr.(*os.File)
	if !ok || e.getenv("NO_COLOR") != "" {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func countErrors(diags hcl.Diagnostics) string {
	n := len(diags.Errs())
	if n == 1 {
		return "1 error"
	}
	return fmt.Sprintf("%d errors", n)
}
