package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/internal/ghaction"
	"github.com/llmgate/llmgate/internal/report"
	"github.com/llmgate/llmgate/internal/runner"
	"github.com/llmgate/llmgate/internal/suite"
	"github.com/llmgate/llmgate/untrusted"
)

func init() {
	register(&command{
		name:    "gate",
		summary: "run a suite, check its asserts, compare with the baseline, pass or fail",
		usage:   "SUITE [flags]",
		help: `
Gate is what CI runs: it runs SUITE like 'llmgate run', checks every assert,
compares the results with a baseline results file metric by metric (the
suite's gate block sets the tolerance bands and the significance level),
prints the verdict, and exits 1 when the gate fails. The comparison table fits
100 columns; --wide adds each row's estimator, spreads, test and interval.

The baseline is --baseline FILE, else the suite's gate { baseline = ... },
relative to the suite file. When the gate block's file does not exist yet
(the first pull request, before a baseline was promoted from main) the gate
judges the asserts only and says plainly that no regression was checked;
--baseline none does that on purpose (a dry run against the simulator, say,
whose numbers must not meet the GPU's baseline). A --baseline FILE that does
not exist is bad usage. A baseline of another suite, or whose runs differ in
workload or load, is refused unless --allow-different-baseline.

A run of the baseline that the results lack fails the gate, unless --only
narrowed the run on purpose; the runs it left out are named in a note.

A change past its band that a single run cannot call either way
(inconclusive) is confirmed by running just those runs once more; the mean
of both runs decides. --rerun=false skips this. Inconclusive verdicts that
remain pass the gate unless --fail-on inconclusive (or the gate block's
fail_on_inconclusive) is set.

--results FILE (repeatable) judges results measured elsewhere instead of
running: a file merged by 'llmgate merge', or the shards' own files, merged
here. They must be of the same plan: the suite file, --var and --only of the
jobs that ran them. Runs the files lack (a shard that never uploaded, a shard
cut short) make the verdict error, naming them by shard. A change that would
need a confirming rerun stays inconclusive (the runners are gone) unless a
given file holds that rerun: --shard I/N runs and judges one shard only,
confirms its own unclear changes by a rerun on its runner, writes it beside
its results (NAME.rerun.json) for the final gate, and leaves the
pull-request comment to the gate on the merged results.

The verdict is recorded in the results file the gate writes (-o; with
--results only when -o is given): decision, counts, baseline and confirming
rerun, so that llmgate report on that file shows the gate's verdict. gate,
compare and report judge through one judge: one pair of files, the same
bands and rerun, one verdict.

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

  # judge the results of shard jobs (llmgate run --shard I/N) in one place
  llmgate gate perf/gate.hcl --results shard-1.json --results shard-2.json

  # A/B in one job: main's image beside the PR's, no baseline file
  llmgate gate perf/gate.hcl --ab-var image=ghcr.io/org/vllm:main \
      --var image=ghcr.io/org/vllm:pr-123

  # write the markdown report for a later step
  llmgate gate perf/gate.hcl --markdown report.md

Exit codes: 0 the gate passed; 1 an assert failed or a metric regressed (or
an inconclusive change with --fail-on inconclusive, or a baseline run
missing); 2 bad usage, an invalid suite, a missing, unreadable or different
baseline; 3 something was not judged: a server did not start or stopped
responding, a run was invalid (the load generator fell behind its plan, or
the server did not serve the workload asked; each run's reason is given),
partial or failed, or the run was interrupted.`,
		run: gateCommand,
	})
}

// gateOptions are gate's flags.
type gateOptions struct {
	runFlags
	suitePath string
	baseline  string
	markdown  string
	reportURL string
	vars      map[string]string
	comment   bool
	rerun     bool
	failOn    string
	measured  resultsFlags
	allowDiff bool
	wide      bool
}

func gateCommand(ctx context.Context, e *env, args []string) error {
	c := commands["gate"]
	fs := newFlags(c, e)
	var o gateOptions
	o.register(fs, "write the results file to `PATH`")
	fs.StringVar(&o.baseline, "baseline", "", "compare with the results file at `FILE` (default: the suite's gate.baseline; none: asserts only)")
	fs.StringVar(&o.markdown, "markdown", "", "write the markdown report to `FILE` (under GitHub Actions, default: beside the results file)")
	fs.StringVar(&o.reportURL, "report-url", "", "link the HTML report at `URL` (the workflow's artifact, say) from the markdown report and comment")
	fs.BoolVar(&o.comment, "comment", true, "post or update the pull-request comment under GitHub Actions")
	fs.BoolVar(&o.rerun, "rerun", true, "run inconclusive runs once more to confirm before judging them")
	fs.StringVar(&o.failOn, "fail-on", "", "also fail on `inconclusive` changes")
	o.measured.register(fs)
	fs.BoolVar(&o.allowDiff, "allow-different-baseline", false, "compare with a baseline of another suite or plan anyway")
	fs.BoolVar(&o.wide, "wide", false, "add each row's estimator, spreads, test and interval to the comparison table (about 170 columns)")
	limit := inputLimitFlag(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	defer limit()()
	if len(pos) != 1 {
		return usagef("gate takes one suite file, got %d arguments (see llmgate help gate)", len(pos))
	}
	o.suitePath = pos[0]
	if o.vars, err = o.check(); err != nil {
		return err
	}
	if o.reportURL != "" {
		if err := report.CheckReportURL(o.reportURL); err != nil {
			return usageErr(fmt.Errorf("--report-url: %w", err))
		}
	}
	switch o.failOn {
	case "", "regression", "inconclusive":
	default:
		return usagef("--fail-on %q: want inconclusive (regressions and failed asserts always fail the gate)", o.failOn)
	}
	if err := o.checkGiven(fs, e); err != nil {
		return err
	}
	if len(o.abVars) > 0 && (o.measured.on() || o.baseline != "") {
		return usagef("--ab-var measures the baseline side in this job: it takes neither --baseline nor --results")
	}
	return runGate(ctx, e, o)
}

// gateRun is one gate command's state: what its outputs and report are made of.
type gateRun struct {
	e       *env
	o       gateOptions
	gh      *ghaction.Actions
	s       *suite.Suite
	out     *runner.GateOutcome // nil until runner.Gate returned
	verdict compare.Decision
	mdPath  string
	// givenRerun is the confirming rerun among the --results files; ""
	// when none or several (a merge of shards' reruns).
	givenRerun string
}

func runGate(ctx context.Context, e *env, o gateOptions) error {
	g := &gateRun{e: e, o: o, gh: ghaction.New(e.getenv, e.stdout)}

	s, diags, err := loadSuite(e, o.suitePath, o.vars)
	if err != nil {
		return err
	}
	if diags.HasErrors() {
		g.gh.Annotate(ghaction.DiagnosticAnnotations(suite.PlainDiagnostics(diags)))
		if err := g.gh.AppendSummary(report.InvalidSuiteMarkdown(o.suitePath, suite.PlainDiagnostics(diags))); err != nil {
			fmt.Fprintf(e.stderr, "llmgate: %v\n", err)
		}
		g.verdict = compare.DecisionError
		g.setOutputs()
		return errReported{exitUsage}
	}
	g.s = s
	if err := checkOutputs(g.outputs(), append([]string{o.suitePath, baselineInput(s, o.baseline)}, o.measured.files...)...); err != nil {
		return g.usage(err)
	}
	ropts, err := o.options(ctx, e, s, o.suitePath)
	if err != nil {
		return g.usage(err)
	}

	ab, err := o.abSetup(e, s, o.vars) // resolved by runner.Gate: its error is usage too
	if err != nil {
		return g.usage(err)
	}
	gopts := runner.GateOptions{
		AB:                     ab,
		Options:                ropts,
		Baseline:               o.baseline,
		Rerun:                  o.rerun,
		RerunPath:              siblingPath(o.out, ".rerun.json"),
		FailOnInconclusive:     o.failOn == "inconclusive",
		AllowDifferentBaseline: o.allowDiff,
		Notify:                 g.note,
	}
	if err := withHistoryBaseline(ctx, e, s, &gopts); err != nil { // --baseline history:STORE
		g.verdict = compare.DecisionError
		g.setOutputs()
		return err
	}
	var out *runner.GateOutcome
	if o.measured.on() {
		out, err = g.judgeGiven(s, gopts) // results measured elsewhere: nothing runs
	} else {
		out, err = runner.Gate(ctx, s.Runnable(), gopts)
	}
	if err != nil { // the baseline is missing, unreadable or different, or the results files do not fit; nothing ran
		return g.usage(err)
	}
	g.out, g.verdict = out, out.Decision

	problems := out.Problems
	if err := g.recordVerdict(g.rerunPath(gopts)); err != nil {
		problems = append(problems, err)
	}
	if err := g.report(ctx); err != nil {
		problems = append(problems, err)
	}

	msg := report.Headline(out.Comparison)
	switch g.verdict {
	case compare.DecisionFail:
		for _, p := range problems {
			fmt.Fprintf(e.stderr, "llmgate: %s\n", untrusted.Text(p.Error())) // may quote the server
		}
		return gateErr(fmt.Errorf("gate failed: %s", msg))
	case compare.DecisionError:
		for _, p := range problems {
			fmt.Fprintf(e.stderr, "llmgate: %s\n", untrusted.Text(p.Error())) // may quote the server
		}
		return infraErr(fmt.Errorf("gate could not judge: %s", msg))
	}
	for _, p := range problems { // a report that could not be written: said, not fatal
		fmt.Fprintf(e.stderr, "llmgate: %v\n", p)
	}
	fmt.Fprintf(e.stdout, "llmgate: gate %s: %s\n", strings.ToUpper(string(g.verdict)), msg)
	return nil
}

// report prints the comparison, writes the markdown, and under Actions sets
// the outputs, the step summary, the annotations and the PR comment.
func (g *gateRun) report(ctx context.Context) error {
	e, out := g.e, g.out
	fmt.Fprintln(e.stdout)
	if len(out.Current.Runs) > 0 {
		if err := report.RunTable(e.stdout, out.Current); err != nil {
			return err
		}
		fmt.Fprintln(e.stdout)
		if m := report.MissingText(out.Current); m != "" && out.Baseline == nil { // with one, the comparison says it
			fmt.Fprintln(e.stdout, m)
		}
	}
	var errs []error
	if out.Baseline != nil {
		if err := report.Terminal(e.stdout, out.Comparison, report.TerminalOptions{Wide: g.o.wide}); err != nil {
			errs = append(errs, fmt.Errorf("terminal report: %w", err))
		}
	}
	printFailedAsserts(e.stderr, out.FailedAsserts())
	if g.resultsWritten() {
		fmt.Fprintf(e.stdout, "Results written to %s\n", g.o.out)
	}

	md := report.Markdown(out.Comparison, report.MarkdownOptions{ReportURL: g.o.reportURL, Problems: out.Problems, Notes: out.Notes})
	g.mdPath = g.markdownPath()
	if g.mdPath != "" {
		if err := writeFileAtomic(g.mdPath, []byte(md)); err != nil {
			errs = append(errs, fmt.Errorf("write markdown report: %w", err))
			g.mdPath = ""
		} else {
			fmt.Fprintf(e.stdout, "Markdown report written to %s\n", g.mdPath)
		}
	}

	res, err := g.gh.PublishGate(ctx, ghaction.GateReport{
		Suite:       g.s.Name,
		Markdown:    md,
		Annotations: ghaction.GateAnnotations(out.Comparison, g.s.ScenarioSources(), out.FailedAsserts()),
		Outputs:     g.outputValues(),
		Comment:     g.o.comment,
	}, nil)
	if err != nil {
		errs = append(errs, err)
	}
	if g.gh.Enabled() && g.o.comment {
		switch res.Outcome {
		case ghaction.CommentCreated, ghaction.CommentUpdated:
			fmt.Fprintf(e.stdout, "Pull-request comment %s: %s\n", res.Outcome, res.URL)
		default:
			fmt.Fprintf(e.stdout, "No pull-request comment (%s): %s\n", res.Outcome, res.Reason)
		}
	}
	return errors.Join(errs...)
}

// rerunPath is the file of the confirming rerun that decided changes of
// the gate's comparison: the one it wrote, or the one it was given; ""
// when no rerun decided anything.
func (g *gateRun) rerunPath(opts runner.GateOptions) string {
	if g.out.Rerun == nil {
		return ""
	}
	if g.o.measured.on() {
		return g.givenRerun
	}
	if _, err := os.Stat(opts.RerunPath); opts.RerunPath == "" || err != nil {
		return ""
	}
	return opts.RerunPath
}

// outputValues are the step outputs from what the gate knows so far.
func (g *gateRun) outputValues() ghaction.Outputs {
	o := ghaction.Outputs{Verdict: string(g.verdict), SummaryPath: g.mdPath}
	if g.out != nil {
		o.Regressions, o.FailedAsserts = g.out.Regressions(), len(g.out.FailedAsserts())
	}
	if g.resultsWritten() {
		o.ResultsPath = g.o.out
	}
	return o
}

// setOutputs sets the step outputs of a gate that stopped before it could
// report; an output that cannot be written is said on stderr, since the
// gate is already failing with its own error.
func (g *gateRun) setOutputs() {
	if err := g.gh.SetOutputs(g.outputValues()); err != nil {
		fmt.Fprintf(g.e.stderr, "llmgate: %v\n", err)
	}
}

// markdownPath is where the markdown report goes: --markdown, else beside
// the results file under Actions, else nowhere.
func (g *gateRun) markdownPath() string {
	if g.o.markdown == "" && g.gh.Enabled() {
		return siblingPath(g.o.out, ".md")
	}
	return g.o.markdown
}

// outputs are the files the gate writes.
func (g *gateRun) outputs() []output {
	outs := []output{{"-o", g.o.out}, {"--markdown", g.markdownPath()}}
	if g.o.out != "" {
		outs = append(outs, output{"the rerun file", siblingPath(g.o.out, ".rerun.json")})
	}
	return outs
}

// baselineInput is the baseline file the gate reads, "" for none.
func baselineInput(s *suite.Suite, flag string) string {
	if p := runner.BaselinePath(s.Runnable(), flag); p != runner.BaselineNone {
		return p
	}
	return ""
}

// resultsWritten reports whether the results file is this gate's.
func (g *gateRun) resultsWritten() bool {
	var problems error
	if g.out != nil {
		problems = errors.Join(g.out.Problems...)
	}
	return resultsWritten(g.o.out, problems)
}

// note tells the user something that does not change the verdict: on
// stderr, and as a notice under Actions. runner.Gate keeps it for the
// markdown.
func (g *gateRun) note(s string) {
	fmt.Fprintf(g.e.stderr, "llmgate: %s\n", s)
	g.gh.Notice("llmgate", s)
}

// usage reports a usage error, setting verdict=error under Actions.
func (g *gateRun) usage(err error) error {
	g.verdict = compare.DecisionError
	g.setOutputs()
	return usageErr(err)
}
