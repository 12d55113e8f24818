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

	"github.com/hashicorp/hcl/v2"
	"github.com/llmgate/llmgate/compare"
	"github.com/llmgate/llmgate/ghaction"
	"github.com/llmgate/llmgate/report"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runner"
	"github.com/llmgate/llmgate/suite"
)

func init() {
	register(&command{
		name:    "gate",
		summary: "run a suite, check its asserts, compare with the baseline, pass or fail",
		usage:   "SUITE [--baseline FILE] [-o results.json] [--var NAME=VALUE]... [--only NAME]... [--target URL] [--comment=false] [--fail-on inconclusive] [--markdown FILE]",
		help: `
Gate is what CI runs: it runs SUITE like 'llmgate run', checks every assert,
compares the results with a baseline results file metric by metric (the
suite's gate block sets the tolerance bands and the significance level),
prints the verdict, and exits 1 when the gate fails.

The baseline is --baseline FILE, else the suite's gate { baseline = ... },
relative to the suite file. When that file does not exist yet (the first pull
request, before a baseline was promoted from main) the gate judges the
asserts only and says so; --baseline none does that on purpose (a dry run
against the simulator, say, whose numbers must not meet the GPU's baseline).

A change past its band that a single run cannot call either way
(inconclusive) is confirmed by running just those runs once more; the mean
of both runs decides. --rerun=false skips this. Inconclusive verdicts that
remain pass the gate unless --fail-on inconclusive (or the gate block's
fail_on_inconclusive) is set.

Under GitHub Actions (GITHUB_ACTIONS=true) gate also sets the step outputs
verdict, regressions, failed-asserts, results-path and summary-path, appends
the markdown report to the step summary, puts error annotations on the suite
at the lines of the worst regressions and failed asserts, and, on
pull_request events with a token (GITHUB_TOKEN or the action's github-token),
keeps one comment per suite on the pull request up to date (--comment=false
turns that off). A read-only token, as on pull requests from forks, leaves
the report in the step summary with a notice; it never fails the gate.

Examples:
  # gate a PR against the baseline promoted from main
  llmgate gate perf/gate.hcl --baseline perf/baseline.json

  # the same against a server that is already running
  llmgate gate perf/gate.hcl --target http://127.0.0.1:8000

  # write the markdown report for a later step
  llmgate gate perf/gate.hcl --markdown report.md

Exit codes: 0 the gate passed; 1 an assert failed or a metric regressed (or
an inconclusive change with --fail-on inconclusive); 2 bad usage, an invalid
suite or an unreadable baseline; 3 a server did not start or stopped
responding, a run was invalid (the load generator could not keep to its
plan), or the run was interrupted.`,
		run: gateCommand,
	})
}

// Gate verdicts, the verdict output.
const (
	verdictPass         = "pass"         // every assert held, nothing regressed
	verdictFail         = "fail"         // an assert failed or a metric regressed
	verdictInconclusive = "inconclusive" // passed, with changes the runs could not call
	verdictError        = "error"        // the suite could not be judged: invalid, unreachable, interrupted
)

// gateOptions are gate's flags.
type gateOptions struct {
	suitePath string
	baseline  string
	out       string
	markdown  string
	targetURL string
	logDir    string
	vars      map[string]string
	only      []string
	comment   bool
	rerun     bool
	failOn    string
}

// gateList is a repeatable string flag.
type gateList []string

func (l *gateList) String() string     { return strings.Join(*l, ",") }
func (l *gateList) Set(v string) error { *l = append(*l, v); return nil }

func gateCommand(ctx context.Context, e *env, args []string) error {
	c := commands["gate"]
	fs := newFlags(c, e)
	var o gateOptions
	fs.StringVar(&o.baseline, "baseline", "", "compare with the results file at `FILE` (default: the suite's gate.baseline; none: asserts only)")
	fs.StringVar(&o.out, "o", "results.json", "write the results file to `PATH`")
	fs.StringVar(&o.markdown, "markdown", "", "write the markdown report to `FILE` (under GitHub Actions, default: beside the results file)")
	fs.StringVar(&o.targetURL, "target", "", "send every run to the running server at `URL` instead of the suite's targets")
	fs.StringVar(&o.logDir, "log-dir", "", "write container logs to `DIR` (default: beside the results file)")
	var vars, only gateList
	fs.Var(&vars, "var", "set the suite variable `NAME=VALUE` (repeatable; also LLMGATE_VAR_NAME in the environment)")
	fs.Var(&only, "only", "run only the runs or scenarios called `NAME` (repeatable)")
	fs.BoolVar(&o.comment, "comment", true, "post or update the pull-request comment under GitHub Actions")
	fs.BoolVar(&o.rerun, "rerun", true, "run inconclusive runs once more to confirm before judging them")
	fs.StringVar(&o.failOn, "fail-on", "", "also fail on `inconclusive` changes")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("gate takes one suite file, got %d arguments (see llmgate help gate)", len(pos))
	}
	o.suitePath = pos[0]
	o.only = only
	o.vars = map[string]string{}
	for _, kv := range vars {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return usagef("--var %q: want NAME=VALUE", kv)
		}
		o.vars[k] = v
	}
	if o.targetURL != "" {
		if u, err := url.Parse(o.targetURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return usagef("--target %q: want a server's base URL such as http://127.0.0.1:8000", o.targetURL)
		}
	}
	switch o.failOn {
	case "", "regression", "inconclusive":
	default:
		return usagef("--fail-on %q: want inconclusive (regressions and failed asserts always fail the gate)", o.failOn)
	}
	if o.out == "" {
		return usagef("-o: want a results file path")
	}
	return runGate(ctx, e, o)
}

// gateRun is one gate's state as it goes: what the outputs and report are made of.
type gateRun struct {
	e    *env
	o    gateOptions
	gh   *ghaction.Actions
	s    *suite.Suite
	base *results.File
	cur  *results.File
	cmp  *compare.Comparison
	// judged holds the failed asserts of runs that may be judged.
	judged  []compare.FailedAssert
	verdict string
	mdPath  string
	notes   []string // said on stderr, as notices under Actions, and above the markdown
	// problems are why the gate could not judge (verdict error), for the markdown.
	problems []error
}

func runGate(ctx context.Context, e *env, o gateOptions) error {
	g := &gateRun{e: e, o: o, gh: ghaction.New(e.getenv, e.stdout)}

	s, diags := suite.Load(o.suitePath, suite.Options{Vars: o.vars, Getenv: e.getenv})
	if len(diags) > 0 {
		var files map[string]*hcl.File
		if s != nil {
			files = s.Files
		}
		if err := suite.WriteDiagnostics(e.stderr, files, diags, gateIsTerminal(e.stderr) && e.getenv("NO_COLOR") == ""); err != nil {
			return err
		}
	}
	if diags.HasErrors() {
		g.gh.Annotate(ghaction.DiagnosticAnnotations(diags))
		g.verdict = verdictError
		g.setOutputs()
		return errReported{exitUsage}
	}
	g.s = s
	plan := s.Plan()
	if len(o.only) > 0 {
		var err error
		if plan, err = plan.Filter(o.only); err != nil {
			return g.usage(err)
		}
	}
	cfg := compare.ConfigFromGate(s.Gate)
	if o.failOn == "inconclusive" {
		cfg.FailOnInconclusive = true
	}

	// The baseline is read before any GPU time is spent on a run.
	basePath := gateBaselinePath(o, s)
	switch {
	case basePath == "none":
		g.note("baseline disabled (--baseline none): only the asserts are judged")
	case basePath == "":
		g.note("no baseline: the suite's gate block names none and --baseline was not given, so only the asserts are judged")
	default:
		if _, err := os.Stat(basePath); errors.Is(err, os.ErrNotExist) {
			g.note(fmt.Sprintf("no baseline: %s does not exist yet, so only the asserts are judged (promote a results file from main to create it)", basePath))
		} else {
			base, err := results.ReadFile(basePath)
			if err != nil {
				return g.usage(fmt.Errorf("baseline %s: %w", basePath, err))
			}
			g.base = base
		}
	}

	ropts := runner.Options{
		Plan:       plan,
		OutputPath: o.out,
		TargetURL:  o.targetURL,
		LogDir:     o.logDir,
		Progress:   runner.NewRenderer(e.stdout, gateIsTerminal(e.stdout), g.gh.Enabled()),
		Env:        runner.DetectEnvironment(ctx, e.getenv, filepath.Dir(o.suitePath), version()),
	}
	cur, runErr := runner.Run(ctx, s, ropts)
	if cur == nil {
		cur = &results.File{Version: results.SchemaVersion, Partial: true}
	}
	g.cur = cur

	v := runner.Judge(cur)
	for _, fa := range v.FailedAsserts {
		g.judged = append(g.judged, compare.FailedAssert{Run: fa.Run, Assert: fa.Assert})
	}
	if g.base != nil {
		g.cmp = compare.Compare(g.base, cur, cfg)
		if names := g.cmp.RerunRuns(); len(names) > 0 && o.rerun && runErr == nil && ctx.Err() == nil {
			g.confirm(ctx, s, plan, ropts, names, cfg)
		}
	} else {
		g.cmp = compare.Compare(nil, cur, cfg) // asserts only: no rows
	}
	if len(v.Unjudged) > 0 {
		g.note(fmt.Sprintf("%d assert(s) failed in runs that cannot be judged (invalid or partial); they do not fail the gate", len(v.Unjudged)))
	}

	problems, regressions, inconclusive := g.decide(runErr, v, cfg)
	g.problems = problems
	if err := g.report(ctx); err != nil {
		problems = append(problems, err)
	}

	msg := fmt.Sprintf("%d regression(s), %d failed assert(s)", regressions, len(g.judged))
	if inconclusive > 0 {
		msg += fmt.Sprintf(", %d inconclusive", inconclusive)
	}
	switch g.verdict {
	case verdictFail:
		for _, p := range problems {
			fmt.Fprintf(e.stderr, "llmgate: %v\n", p)
		}
		return gateErr(fmt.Errorf("gate failed: %s", msg))
	case verdictError:
		return infraErr(errors.Join(problems...))
	}
	for _, p := range problems { // a report that could not be written: said, not fatal
		fmt.Fprintf(e.stderr, "llmgate: %v\n", p)
	}
	fmt.Fprintf(e.stdout, "llmgate: gate %s: %s\n", strings.ToUpper(g.verdict), msg)
	return nil
}

// decide sets the verdict: regressions and judged failed asserts fail the
// gate; a run that could not be judged is an infrastructure problem (as in
// run). It returns those problems and the counts the verdict line needs.
func (g *gateRun) decide(runErr error, v runner.Verdict, cfg compare.Config) (problems []error, regressions, inconclusive int) {
	n := g.cmp.Counts()
	regressions, inconclusive = n.ByVerdict[compare.Regression], n.ByVerdict[compare.Inconclusive]
	if runErr != nil {
		problems = append(problems, runErr)
	}
	if len(v.Invalid) > 0 {
		problems = append(problems, fmt.Errorf("%d run(s) invalid, the load generator could not keep to its plan, so the server was not judged: %s",
			len(v.Invalid), strings.Join(v.Invalid, ", ")))
	}
	switch {
	case regressions > 0 || len(g.judged) > 0 || (cfg.FailOnInconclusive && inconclusive > 0):
		g.verdict = verdictFail
	case len(problems) > 0:
		g.verdict = verdictError
	case inconclusive > 0:
		g.verdict = verdictInconclusive
	default:
		g.verdict = verdictPass
	}
	return problems, regressions, inconclusive
}

// confirm reruns the runs that asked for it and decides their rows with
// compare.Confirm. A rerun that fails leaves the rows inconclusive.
func (g *gateRun) confirm(ctx context.Context, s *suite.Suite, plan *suite.Plan, ropts runner.Options, names []string, cfg compare.Config) {
	rplan, err := plan.Filter(names)
	if err != nil {
		g.note(fmt.Sprintf("cannot rerun %s to confirm: %v", strings.Join(names, ", "), err))
		return
	}
	fmt.Fprintf(g.e.stdout, "\nllmgate: %d run(s) moved close to or past their band without a clear call; running them once more to confirm: %s\n",
		len(names), strings.Join(names, ", "))
	ropts.Plan = rplan
	ropts.OutputPath = gateSibling(g.o.out, ".rerun.json")
	rerun, err := runner.Run(ctx, s, ropts)
	if err != nil || rerun == nil {
		g.note(fmt.Sprintf("the confirming rerun failed (%v); its runs stay inconclusive", err))
		return
	}
	g.cmp = compare.Confirm(g.base, g.cur, rerun, cfg)
}

// report prints the comparison, writes the markdown, and under Actions sets
// the outputs, the step summary, the annotations and the PR comment.
func (g *gateRun) report(ctx context.Context) error {
	e := g.e
	fmt.Fprintln(e.stdout)
	if g.cur != nil && len(g.cur.Runs) > 0 {
		if err := report.RunTable(e.stdout, g.cur); err != nil {
			return err
		}
		fmt.Fprintln(e.stdout)
	}
	var errs []error
	if g.base != nil {
		if err := report.Terminal(e.stdout, g.cmp); err != nil {
			errs = append(errs, fmt.Errorf("terminal report: %w", err))
		}
	}
	for _, fa := range g.judged {
		fmt.Fprintf(e.stderr, "%s: assert %q failed in %s: %s\n", gateAssertPos(fa.Assert), fa.Assert.Name, fa.Run, ghaction.AssertText(fa.Assert))
	}
	if _, err := os.Stat(g.o.out); err == nil {
		fmt.Fprintf(e.stdout, "Results written to %s\n", g.o.out)
	}

	md := report.Markdown(g.cmp, report.MarkdownOptions{Title: "llmgate · " + g.s.Name})
	if len(g.notes) > 0 || g.verdict == verdictError {
		var b strings.Builder
		if g.verdict == verdictError {
			b.WriteString("> [!CAUTION]\n> **The gate could not judge this change.**\n")
			for _, p := range g.problems {
				fmt.Fprintf(&b, "> - %s\n", strings.ReplaceAll(p.Error(), "\n", " "))
			}
			b.WriteString("\n")
		}
		for _, n := range g.notes {
			fmt.Fprintf(&b, "> [!NOTE]\n> %s\n\n", n)
		}
		md = gateInsertAfterHeading(md, b.String())
	}
	g.mdPath = g.o.markdown
	if g.mdPath == "" && g.gh.Enabled() {
		g.mdPath = gateSibling(g.o.out, ".md")
	}
	if g.mdPath != "" {
		if err := os.WriteFile(g.mdPath, []byte(md), 0o644); err != nil {
			errs = append(errs, fmt.Errorf("write markdown report: %w", err))
			g.mdPath = ""
		} else {
			fmt.Fprintf(e.stdout, "Markdown report written to %s\n", g.mdPath)
		}
	}

	if !g.gh.Enabled() {
		return errors.Join(errs...)
	}
	if err := g.gh.AppendSummary(md); err != nil {
		errs = append(errs, err)
	}
	g.gh.Annotate(ghaction.GateAnnotations(g.cmp, g.s, g.judged))
	if err := g.setOutputs(); err != nil {
		errs = append(errs, err)
	}
	if g.o.comment {
		res := g.gh.PostComment(ctx, g.s.Name, md, nil)
		switch res.Outcome {
		case ghaction.CommentCreated, ghaction.CommentUpdated:
			fmt.Fprintf(e.stdout, "Pull-request comment %s: %s\n", res.Outcome, res.URL)
		default:
			fmt.Fprintf(e.stdout, "No pull-request comment (%s): %s\n", res.Outcome, res.Reason)
		}
	}
	return errors.Join(errs...)
}

// setOutputs sets the step outputs from what the gate knows so far.
func (g *gateRun) setOutputs() error {
	if !g.gh.Enabled() {
		return nil
	}
	o := ghaction.Outputs{Verdict: g.verdict, FailedAsserts: len(g.judged), SummaryPath: g.mdPath}
	if g.cmp != nil {
		o.Regressions = g.cmp.Counts().ByVerdict[compare.Regression]
	}
	if _, err := os.Stat(g.o.out); err == nil {
		o.ResultsPath = g.o.out
	}
	return g.gh.SetOutputs(o)
}

// note records something the user must know that does not change the verdict.
func (g *gateRun) note(s string) {
	g.notes = append(g.notes, s)
	fmt.Fprintf(g.e.stderr, "llmgate: %s\n", s)
	g.gh.Notice("llmgate", s)
}

// usage reports a usage error, setting verdict=error under Actions.
func (g *gateRun) usage(err error) error {
	g.verdict = verdictError
	g.setOutputs()
	return usageErr(err)
}

// gateBaselinePath is --baseline, else the suite's gate.baseline relative
// to the suite file's directory, else "".
func gateBaselinePath(o gateOptions, s *suite.Suite) string {
	if o.baseline != "" {
		return o.baseline
	}
	if s.Gate == nil || s.Gate.Baseline == "" {
		return ""
	}
	if filepath.IsAbs(s.Gate.Baseline) {
		return s.Gate.Baseline
	}
	return filepath.Join(filepath.Dir(o.suitePath), s.Gate.Baseline)
}

// gateSibling replaces path's extension with ext: results.json → results.md.
func gateSibling(path, ext string) string {
	return strings.TrimSuffix(path, filepath.Ext(path)) + ext
}

// gateInsertAfterHeading puts block after md's first line when that line is
// a heading (so the verdict stays first), else before md.
func gateInsertAfterHeading(md, block string) string {
	first, rest, ok := strings.Cut(md, "\n")
	if ok && strings.HasPrefix(first, "#") {
		return first + "\n\n" + block + strings.TrimLeft(rest, "\n")
	}
	return block + md
}

func gateAssertPos(a results.AssertResult) string {
	if a.File == "" {
		return "llmgate"
	}
	return fmt.Sprintf("%s:%d:%d", a.File, a.Line, a.Column)
}

// gateIsTerminal reports whether w is a terminal; redirected output, pipes
// and test buffers are not.
func gateIsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
