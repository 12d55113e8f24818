package main

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/llmgate/llmgate/internal/plan"
	"github.com/llmgate/llmgate/internal/progress"
	"github.com/llmgate/llmgate/internal/runner"
	"github.com/llmgate/llmgate/internal/serverinfo"
	"github.com/llmgate/llmgate/internal/suite"
	"github.com/llmgate/llmgate/results"
	tclog "github.com/testcontainers/testcontainers-go/log"
)

// stringList is a repeatable string flag: --only NAME, --var NAME=VALUE.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

// varFlag registers the repeatable --var NAME=VALUE flag on fs; suiteVars
// turns what it collected into the suite's variables.
func varFlag(fs *flag.FlagSet) *stringList {
	var l stringList
	fs.Var(&l, "var", "set the suite variable `NAME=VALUE` (repeatable; a NAME the suite does not declare is an error; also LLMGATE_VAR_NAME in the environment)")
	return &l
}

// suiteVars parses --var NAME=VALUE flags into suite variables, the last
// one of a name winning; a flag without "=" or without a name is bad usage.
func suiteVars(flags []string) (map[string]string, error) {
	vars := map[string]string{}
	for _, kv := range flags {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, usagef("--var %q: want NAME=VALUE", kv)
		}
		vars[k] = v
	}
	return vars, nil
}

// checkTargetURL checks --target: empty, or a server's http(s) base URL
// (a trailing /v1, the OpenAI SDK's way, is the root plus /v1); --model
// needs it.
func checkTargetURL(s, model string) error {
	if s == "" {
		if model != "" {
			return usagef("--model %q names the model to ask --target's server for: give --target URL too", model)
		}
		return nil
	}
	if _, err := serverinfo.BaseURL(s); err != nil {
		return usagef("--target %q: want a server's base URL such as http://127.0.0.1:8000", s)
	}
	return nil
}

// modelFlagHelp describes --model.
const modelFlagHelp = "ask --target's server for `MODEL` (default: the suite target's model, or the one model the server lists)"

// contextDiagnostics are the runs of p whose requests cannot fit the
// context their target's model is known to have (runner.ContextProblems),
// as errors at their scenario block.
func contextDiagnostics(s *suite.Suite, p *plan.Plan) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, cp := range runner.ContextProblems(p) {
		d := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Workload does not fit the model's context",
			Detail: fmt.Sprintf("Run %s: %s.", cp.Run, cp.Message)}
		for _, sc := range s.Scenarios {
			if sc.Name == cp.Scenario {
				d.Subject = sc.DeclRange.Ptr()
			}
		}
		diags = append(diags, d)
	}
	return diags
}

// checkContexts prints the context diagnostics of p and fails with exit 2
// when there are any; a plan sent to --target is not checked (its
// server's context is known only once it answers).
func checkContexts(e *env, s *suite.Suite, p *plan.Plan, targetURL string) error {
	if targetURL != "" {
		return nil
	}
	diags := contextDiagnostics(s, p)
	if len(diags) == 0 {
		return nil
	}
	if err := suite.WriteDiagnostics(e.stderr, s.Files, diags, colorDiagnostics(e)); err != nil {
		return err
	}
	return errReported{exitUsage}
}

// runFlags are the flags run and gate share: the suite's variables, which
// of its runs, against what, and where the results and logs go.
type runFlags struct {
	out, targetURL, logDir string
	model                  string
	vars, only             stringList
	abVars                 stringList
	shard                  shardFlag
}

// register adds -o (described by outHelp), --var, --only, --target and
// --log-dir to fs.
func (f *runFlags) register(fs *flag.FlagSet, outHelp string) {
	fs.StringVar(&f.out, "o", "results.json", outHelp)
	fs.Var(&f.vars, "var", "set the suite variable `NAME=VALUE` (repeatable; a NAME the suite does not declare is an error; also LLMGATE_VAR_NAME in the environment)")
	fs.Var(&f.abVars, "ab-var", abFlagHelp)
	fs.Var(&f.only, "only", "run only the runs or scenarios called `NAME` (repeatable)")
	fs.StringVar(&f.targetURL, "target", "", "send every run to the running server at `URL` instead of the suite's targets")
	fs.StringVar(&f.model, "model", "", modelFlagHelp)
	fs.StringVar(&f.logDir, "log-dir", "", "write container logs to `DIR` (default: beside the results file)")
	f.shard.register(fs, "run")
}

// check checks the parsed flags and returns the suite variables.
func (f *runFlags) check() (map[string]string, error) {
	vars, err := suiteVars(f.vars)
	if err != nil {
		return nil, err
	}
	if err := checkTargetURL(f.targetURL, f.model); err != nil {
		return nil, err
	}
	if f.out == "" {
		return nil, usagef("-o: want a results file path")
	}
	return vars, nil
}

// options are the runner options for s, loaded from suitePath: its plan
// cut to --only (an --only that names nothing is bad usage), progress on
// stdout, and the environment around the suite file.
func (f *runFlags) options(ctx context.Context, e *env, s *suite.Suite, suitePath string) (runner.Options, error) {
	plan, err := f.plan(s)
	if err != nil {
		return runner.Options{}, err
	}
	plan, info := f.shard.cut(e, plan)
	if err := checkFileLimit(plan, true); err != nil {
		return runner.Options{}, err
	}
	if err := checkContexts(e, s, plan, f.targetURL); err != nil {
		return runner.Options{}, err
	}
	// testcontainers prints a ten-line Docker banner through its default
	// logger the first time it meets the daemon: not llmgate's output.
	tclog.SetDefault(tclog.NewNoopLogger())
	return runner.Options{
		Plan:        plan,
		OutputPath:  f.out,
		TargetURL:   f.targetURL,
		TargetModel: f.model,
		LogDir:      f.logDir,
		Progress:    progress.NewRenderer(e.stdout, e.stdoutTTY, e.getenv("GITHUB_ACTIONS") == "true"),
		Env:         runner.DetectEnvironment(ctx, e.getenv, filepath.Dir(suitePath), version()),
		PlanInfo:    info,
	}, nil
}

// plan is the suite's plan cut to --only (an --only that names nothing is
// bad usage), before any --shard.
func (f *runFlags) plan(s *suite.Suite) (*plan.Plan, error) {
	plan := s.Plan()
	if len(f.only) > 0 {
		var err error
		if plan, err = plan.Filter(f.only); err != nil {
			return nil, usageErr(err)
		}
	}
	return plan, nil
}

// inputLimit is the --max-input-size flag: the largest results file, merge
// input or import the command reads (results.SetMaxInputBytes).
type inputLimit struct{ bytes int64 }

func (l *inputLimit) String() string {
	if l == nil || l.bytes == 0 {
		return fmt.Sprintf("%dMiB", results.DefaultMaxInputBytes>>20)
	}
	return fmt.Sprintf("%d", l.bytes)
}

func (l *inputLimit) Set(v string) error {
	n, err := suite.ParseSize(v)
	if err != nil {
		return err
	}
	l.bytes = n
	return nil
}

// inputLimitFlag registers --max-input-size on fs; apply sets the limit
// for the command once the flags are parsed.
func inputLimitFlag(fs *flag.FlagSet) (apply func() (restore func())) {
	l := &inputLimit{}
	fs.Var(l, "max-input-size", "refuse results files and imports larger than `SIZE` before reading them (such as 1GiB)")
	return func() func() { return results.SetMaxInputBytes(l.bytes) }
}
