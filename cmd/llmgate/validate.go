package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/hcl/v2"
)

func init() {
	register(&command{
		name:    "validate",
		summary: "check suite files for mistakes without running anything",
		usage:   "FILE... [flags]",
		help: `
Validate reads each suite, reports every mistake it finds (unknown blocks
and attributes, impossible values, misspelled metrics, undefined targets and
variables) with the file, line and column first and a snippet of the source,
and exits 2 if any file has an error. Nothing is started and no network is
touched, so it is cheap to run in a pre-commit hook or as a first CI step.

--plan also prints the runs each suite expands to (one per sweep point),
grouped by server start, with the target, the server args and the effective
load and workload of each run after defaults are applied; with --target URL
(and --model) it prints them as 'llmgate run --target' would send them.

A workload that cannot fit the model's context is an error here when the
context is known without starting anything: a simulator's profile or
--max-model-len, a server's --max-model-len (the tiny profile's 1024
tokens do not hold the default 1024 in + 128 out). Against a running
server, run checks max_model_len from its /v1/models before the first
request. --shard I/N says
what shard I of N holds (the split 'llmgate run --shard' makes) and, with
--plan, prints that shard's runs only.

Examples:

  llmgate validate scenarios/*.hcl
  llmgate validate --plan scenarios/memory-sweep.hcl
  llmgate validate --plan --shard 2/3 scenarios/memory-sweep.hcl
  llmgate validate --plan --target http://127.0.0.1:11434/v1 --model tiny scenarios/quickstart.hcl
  llmgate validate --var image=vllm/vllm-openai:v0.11.0 perf/gate.hcl`,
		run: runValidate,
	})
}

func runValidate(ctx context.Context, e *env, args []string) error {
	exitOnInterrupt.Store(true) // nothing to clean up
	fs := newFlags(commands["validate"], e)
	plan := fs.Bool("plan", false, "print the runs each suite expands to, grouped by server start")
	targetURL := fs.String("target", "", "plan every run against the running server at `URL`, as 'llmgate run --target' sends them (nothing is sent)")
	model := fs.String("model", "", modelFlagHelp)
	varFlags := varFlag(fs)
	var shard shardFlag
	shard.register(fs, "show")
	files, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	vars, err := suiteVars(*varFlags)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return usagef("validate needs at least one suite file (see llmgate help validate)")
	}
	if err := checkTargetURL(*targetURL, *model); err != nil {
		return err
	}
	failed := false
	for _, f := range files {
		s, diags, err := loadSuite(e, f, vars)
		if err != nil {
			return err
		}
		if diags.HasErrors() {
			failed = true
			fmt.Fprintf(e.stderr, "%s: %s\n", f, countErrors(diags))
			continue
		}
		p := s.Plan()
		if err := checkFileLimit(p, false); err != nil {
			fmt.Fprintf(e.stderr, "%s: %v\n", f, err)
			failed = true
			continue
		}
		if err := checkContexts(e, s, p, *targetURL); err != nil {
			var rep errReported
			if !errors.As(err, &rep) {
				return err
			}
			fmt.Fprintf(e.stderr, "%s: %s\n", f, countErrors(contextDiagnostics(s, p)))
			failed = true
			continue
		}
		if *targetURL != "" {
			p = p.WithEndpoint(*targetURL, *model)
		}
		fmt.Fprintf(e.stdout, "%s: ok (%d scenario(s), %d run(s))\n", f, len(s.Scenarios), len(p.Runs()))
		if shard.shard != nil {
			p, _ = shard.cut(e, p)
		}
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

func countErrors(diags hcl.Diagnostics) string {
	n := len(diags.Errs())
	if n == 1 {
		return "1 error"
	}
	return fmt.Sprintf("%d errors", n)
}
