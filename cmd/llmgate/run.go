package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/llmgate/llmgate/internal/report"
	"github.com/llmgate/llmgate/internal/runner"
	"github.com/llmgate/llmgate/results"
)

func init() {
	register(&command{
		name:    "run",
		summary: "run a suite's scenarios and write the results file",
		usage:   "SUITE [flags]",
		help: `
Run brings up each server of SUITE (an HCL file) once per group of runs that
share it, drives every scenario's load at it, scrapes its /metrics, checks the
asserts, and stops it again. The results file is rewritten after every run,
so nothing is lost when a server dies or the job is cancelled; until the
whole plan is done, and when it was cut short, the file says "partial": true.

Progress goes to standard output: a live bar on a terminal, plain lines every
few seconds in logs, and one collapsible group per scenario under GitHub
Actions. At the end a table shows one row per run: status, requests ok and
failed, throughput, TTFT p50/p95, TPOT p50, E2EL p95, the server's KV cache
usage (max), requests waiting and running (max), preemptions and prefix-cache
hit rate, GPU utilisation, memory, power and joules per token (when the GPUs
were sampled) and asserts passed; docs/running.md describes each column.

Examples:
  # the quickstart suite against the embedded simulator: no GPU, no Docker
  llmgate run scenarios/quickstart.hcl

  # one scenario, with a variable set, results elsewhere
  llmgate run perf/gate.hcl --only chat_interactive \
      --var image=vllm/vllm-openai:v0.11.0 -o out/results.json

  # the same suite against a server that is already running
  llmgate run perf/gate.hcl --target http://127.0.0.1:8000

  # against Ollama (its root plus /v1, as the OpenAI SDK writes it), naming
  # the model when it serves several; what it lacks is said and recorded
  llmgate run perf/gate.hcl --target http://127.0.0.1:11434/v1 --model llama3.2

--shard I/N runs shard I of N: the plan's server groups (never split, so no
server starts twice) dealt to N shards by planned load, largest first, the
same split in every job that loads the suite with the same --var and --only.
The results file records the shard and the plan's fingerprint; merge the
shards' files with 'llmgate merge' and judge them with 'llmgate gate
--results'. A shard with nothing to run writes an empty results file.

--ab-var NAME=VALUE (repeatable) measures an A/B in one job: the suite is
loaded twice, the baseline side with --var and --ab-var on top, the candidate
with --var, and both sides of every run are measured in the same job, their
blocks of requests interleaved (ABBA...). The candidate's results go to -o,
the baseline side's beside it (results.baseline.json); 'llmgate compare
results.baseline.json results.json' judges the pair block by block. The two
plans must differ only in what serves them. See docs/ab-testing.md.

Compare results files with 'llmgate compare', or run a suite and compare it with
its baseline in one step with 'llmgate gate'.

Exit codes: 0 every assert held; 1 an assert failed; 2 bad usage or an
invalid suite; 3 not judged: a server did not start, stopped responding or
could not be reached, a run was invalid (its numbers cannot be trusted: the load
generator fell behind its plan, or the server did not serve the workload
asked, such as answers or prompts cut short; each run's reason is printed),
or the run was interrupted.`,
		run: runSuiteCommand,
	})
}

func runSuiteCommand(ctx context.Context, e *env, args []string) error {
	c := commands["run"]
	fs := newFlags(c, e)
	var f runFlags
	f.register(fs, "write the results file to `PATH` (rewritten after every run)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("run takes one suite file, got %d arguments (see llmgate help run)", len(pos))
	}
	vars, err := f.check()
	if err != nil {
		return err
	}

	if err := checkOutputs([]output{{"-o", f.out}}, pos[0]); err != nil {
		return err
	}
	s, diags, err := loadSuite(e, pos[0], vars)
	if err != nil {
		return err
	}
	if diags.HasErrors() {
		return errReported{exitUsage}
	}
	opts, err := f.options(ctx, e, s, pos[0])
	if err != nil {
		return err
	}
	ab, err := f.abSetup(e, s, vars)
	if err != nil {
		return err
	}
	if ab != nil {
		job, err := runner.ResolveAB(s.Runnable(), opts, *ab)
		if err != nil {
			return usageErr(err)
		}
		file, base, runErr := job.Run(ctx)
		return runABFinish(e, file, base, f.out, job.BaselineOutputPath(), runErr)
	}
	file, runErr := runner.Run(ctx, s.Runnable(), opts)
	return runFinish(e, file, f.out, runErr)
}

// runABFinish prints the baseline side's table, then finishes as a plain
// run does on the candidate side, whose asserts decide the exit code; the
// baseline side's problems are said too.
func runABFinish(e *env, cand, base *results.File, out, baseOut string, runErr error) error {
	fmt.Fprintln(e.stdout, "\nA/B in one job: baseline side (--ab-var)")
	if base != nil && len(base.Runs) > 0 {
		if err := report.RunTable(e.stdout, base); err != nil {
			return err
		}
		if _, err := os.Stat(baseOut); err == nil {
			fmt.Fprintf(e.stdout, "\nBaseline side written to %s\n", baseOut)
		}
	}
	fmt.Fprintln(e.stdout, "\nA/B in one job: candidate side (--var)")
	return runFinish(e, cand, out, runErr)
}

// runFinish prints the table and the verdict, and picks the exit code: a
// failed assert (1) wins over infrastructure problems (3), which are still
// printed.
func runFinish(e *env, f *results.File, out string, runErr error) error {
	if f != nil && len(f.Runs) > 0 {
		fmt.Fprintln(e.stdout)
		if err := report.RunTable(e.stdout, f); err != nil {
			return err
		}
		if m := report.MissingText(f); m != "" {
			fmt.Fprint(e.stdout, "\n"+m)
		}
	}
	if f != nil {
		state := ""
		if f.Partial {
			state = " (partial: not every run finished)"
		}
		if resultsWritten(out, runErr) {
			fmt.Fprintf(e.stdout, "\nResults written to %s%s\n", out, state)
		}
	}
	v := runner.TallyRuns(f)
	printFailedAsserts(e.stderr, v.FailedAsserts)
	if note := v.UnjudgedNote(); note != "" {
		fmt.Fprintf(e.stderr, "llmgate: %s\n", note)
	}
	problems := v.Problems(runErr)
	switch {
	case v.GateFailed():
		for _, p := range problems {
			fmt.Fprintf(e.stderr, "llmgate: %v\n", p)
		}
		return gateErr(fmt.Errorf("%d of %d asserts failed", len(v.FailedAsserts), v.Asserts))
	case len(problems) > 0:
		return infraErr(errors.Join(problems...))
	}
	return nil
}

// resultsWritten reports whether the results file at out is this run's:
// it exists and no write of it failed.
func resultsWritten(out string, runErr error) bool {
	var we *results.WriteError
	if errors.As(runErr, &we) {
		return false
	}
	fi, err := os.Stat(out)
	return err == nil && !fi.IsDir()
}
