package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/llmgate/llmgate/report"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runner"
	"github.com/llmgate/llmgate/suite"
)

func init() {
	register(&command{
		name:    "run",
		summary: "run a suite's scenarios and write the results file",
		usage:   "SUITE [-o results.json] [--var NAME=VALUE]... [--only NAME]... [--target URL] [--log-dir DIR]",
		help: `
Run brings up each server of SUITE (an HCL file) once per group of runs that
share it, drives every scenario's load at it, scrapes its /metrics, checks the
asserts, and stops it again. The results file is rewritten after every run,
so nothing is lost when a server dies or the job is cancelled; until the
whole plan is done, and when it was cut short, the file says "partial": true.

Progress goes to standard output: a live bar on a terminal, plain lines every
few seconds in logs, and one collapsible group per scenario under GitHub
Actions. At the end a table shows one row per run: status, requests ok and
failed, throughput, TTFT p50/p95, TPOT p50, E2EL p95 and asserts passed.

Examples:
  # the quickstart suite against the embedded simulator: no GPU, no Docker
  llmgate run scenarios/quickstart.hcl

  # one scenario, with a variable set, results elsewhere
  llmgate run perf/gate.hcl --only chat_interactive \
      --var image=vllm/vllm-openai:v0.11.0 -o out/results.json

  # the same suite against a server that is already running
  llmgate run perf/gate.hcl --target http://127.0.0.1:8000

Compare results files with 'llmgate compare', or run a suite and compare it with
its baseline in one step with 'llmgate gate'.

Exit codes: 0 every assert held; 1 an assert failed; 2 bad usage or an
invalid suite; 3 a server did not start, stopped responding or could not be
reached, a run was invalid (the load generator could not keep to its plan,
so the server was not judged), or the run was interrupted.`,
		run: runSuiteCommand,
	})
}

// runFlagList is a repeatable string flag.
type runFlagList []string

func (l *runFlagList) String() string     { return strings.Join(*l, ",") }
func (l *runFlagList) Set(v string) error { *l = append(*l, v); return nil }

func runSuiteCommand(ctx context.Context, e *env, args []string) error {
	c := commands["run"]
	fs := newFlags(c, e)
	out := fs.String("o", "results.json", "write the results file to `PATH` (rewritten after every run)")
	var vars, only runFlagList
	fs.Var(&vars, "var", "set the suite variable `NAME=VALUE` (repeatable; also LLMGATE_VAR_NAME in the environment)")
	fs.Var(&only, "only", "run only the runs or scenarios called `NAME` (repeatable)")
	targetURL := fs.String("target", "", "send every run to the running server at `URL` instead of the suite's targets")
	logDir := fs.String("log-dir", "", "write container logs to `DIR` (default: beside the results file)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("run takes one suite file, got %d arguments (see llmgate help run)", len(pos))
	}
	varMap := map[string]string{}
	for _, kv := range vars {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return usagef("--var %q: want NAME=VALUE", kv)
		}
		varMap[k] = v
	}
	if *targetURL != "" {
		if u, err := url.Parse(*targetURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return usagef("--target %q: want a server's base URL such as http://127.0.0.1:8000", *targetURL)
		}
	}
	if *out == "" {
		return usagef("-o: want a results file path")
	}

	s, diags := suite.Load(pos[0], suite.Options{Vars: varMap, Getenv: e.getenv})
	if len(diags) > 0 {
		if err := suite.WriteDiagnostics(e.stderr, s.Files, diags, runIsTerminal(e.stderr) && e.getenv("NO_COLOR") == ""); err != nil {
			return err
		}
	}
	if diags.HasErrors() {
		return errReported{exitUsage}
	}
	plan := s.Plan()
	if len(only) > 0 {
		if plan, err = plan.Filter(only); err != nil {
			return usageErr(err)
		}
	}

	progress := runner.NewRenderer(e.stdout, runIsTerminal(e.stdout), e.getenv("GITHUB_ACTIONS") == "true")
	f, runErr := runner.Run(ctx, s, runner.Options{
		Plan:       plan,
		OutputPath: *out,
		TargetURL:  *targetURL,
		LogDir:     *logDir,
		Progress:   progress,
		Env:        runner.DetectEnvironment(ctx, e.getenv, filepath.Dir(pos[0]), version()),
	})
	return runFinish(e, f, *out, runErr)
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
	}
	if f != nil {
		state := ""
		if f.Partial {
			state = " (partial: not every run finished)"
		}
		if _, err := os.Stat(out); err == nil {
			fmt.Fprintf(e.stdout, "\nResults written to %s%s\n", out, state)
		}
	}
	v := runner.Judge(f)
	for _, fa := range v.FailedAsserts {
		fmt.Fprintf(e.stderr, "%s: assert %q failed in %s: %s\n", runAssertPos(fa), fa.Assert.Name, fa.Run, runAssertText(fa.Assert))
	}
	if len(v.Unjudged) > 0 {
		fmt.Fprintf(e.stderr, "llmgate: %d assert(s) failed in runs that cannot be judged (invalid or partial); they do not fail the gate\n", len(v.Unjudged))
	}
	var problems []error
	if runErr != nil {
		problems = append(problems, runErr)
	}
	if len(v.Invalid) > 0 {
		problems = append(problems, fmt.Errorf("%d run(s) invalid, the load generator could not keep to its plan, so the server was not judged: %s",
			len(v.Invalid), strings.Join(v.Invalid, ", ")))
	}
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

func runAssertPos(fa runner.FailedAssert) string {
	if fa.Assert.File == "" {
		return "llmgate"
	}
	return fmt.Sprintf("%s:%d:%d", fa.Assert.File, fa.Assert.Line, fa.Assert.Column)
}

// runAssertText is the assert's message, which names the condition and the
// values it saw, or its condition when it has none.
func runAssertText(a results.AssertResult) string {
	if a.Message != "" {
		return a.Message
	}
	return a.Condition
}

// runIsTerminal reports whether w is a character device (a terminal), without
// any dependency: redirected output, pipes and test buffers are not.
func runIsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
