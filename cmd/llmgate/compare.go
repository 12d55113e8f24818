package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/internal/judge"
	"github.com/llmgate/llmgate/internal/report"
	"github.com/llmgate/llmgate/results"
)

func init() {
	register(&command{
		name:    "compare",
		summary: "compare results with a baseline and fail on a regression",
		usage:   "BASELINE CURRENT [flags]",
		help: `
Compare sets CURRENT against BASELINE (both results files) run by run and
metric by metric, prints a benchstat-like table, and exits 1 when a metric
regressed, an assert failed in CURRENT or a run of BASELINE is missing from
CURRENT; 3 when something could not be judged (an invalid, partial or failed
run, a file cut short): nothing judged is never a pass; 2 for unreadable or
invalid files, and for a BASELINE of another suite or of runs whose
workload or load differ (--allow-different-baseline compares anyway);
0 otherwise.

--only NAME says CURRENT was narrowed on purpose (llmgate run --only NAME):
runs of BASELINE it does not select are skipped with a note, not missing.

Bands and alpha come from the suite's gate block (--suite); without one the
defaults are 10% on ttft.p95, tpot.p95 and e2el.p95 and 5% on
throughput.output_tokens, alpha 0.05. Percentile changes are estimated with
the Harrell-Davis estimator and judged by the interval of the quantile
difference (Maritz-Jarrett standard errors, with a run-to-run drift
allowance), or Mann-Whitney U when the whole distribution moved; means by
Mann-Whitney U. The table shows the values the verdict used and the change
even when not significant ("~"), within 100 columns; --wide adds each row's
estimator, the spread of both values and the evidence (the test, its p-value,
the sample sizes and the change's 95% interval), as the markdown has them.

Verdicts: regression, improvement, unchanged, inconclusive, new, missing,
invalid. A change inside the band is never a regression, however
significant ("unchanged (significant, within the band)"): the band is what
a change may cost. One run calls a regression only past twice the band; a
change from 75% of the band up is "inconclusive (rerun to confirm)",
because run-to-run drift alone moves p95 that far. Rerun just those runs
(llmgate run --only) and pass the file as --rerun: the mean change over
both runs then decides. Inconclusive verdicts fail only with --fail-on
inconclusive.

BASELINE and CURRENT that are the two sides of an A/B job (llmgate run
--ab-var writes results.baseline.json beside results.json) are judged over
their block pairs, and so is their rerun: --rerun then takes the candidate
side of a confirming A/B rerun, its baseline side beside it
(rerun.baseline.json for rerun.json), and the block pairs of both jobs
decide.

Examples:

  llmgate compare perf/baseline.json results.json --suite perf/gate.hcl
  llmgate compare base.json cur.json --markdown summary.md --json verdicts.json
  llmgate compare base.json cur.json --rerun rerun.json`,
		run: runCompare,
	})
}

// readRerunBaseline reads the baseline side of the confirming A/B rerun
// whose candidate side rerun was read from path: the file beside it that
// llmgate gate writes (results.ABBaselinePath).
func readRerunBaseline(path string, rerun *results.File) (*results.File, error) {
	if rerun.AB == nil || rerun.AB.Side != results.SideCandidate {
		return nil, usagef("BASELINE and CURRENT are the two sides of an A/B job, which an A/B rerun confirms: --rerun takes its candidate side, %s is not one", path)
	}
	bpath := results.ABBaselinePath(path)
	base, err := readResults(bpath, "rerun baseline side")
	if err != nil {
		return nil, err
	}
	if base.AB == nil || base.AB.Side != results.SideBaseline {
		return nil, usagef("%s is not the baseline side of the A/B rerun %s", bpath, path)
	}
	return base, nil
}

func runCompare(ctx context.Context, e *env, args []string) error {
	fs := newFlags(commands["compare"], e)
	suitePath := fs.String("suite", "", "suite `FILE` whose gate block gives bands and alpha")
	rerunPath := fs.String("rerun", "", "results `FILE` of a confirming rerun of the runs compare asked to rerun")
	mdPath := fs.String("markdown", "", "also write the markdown summary to `FILE`")
	reportURL := fs.String("report-url", "", "link the HTML report at `URL` from the markdown summary")
	jsonPath := fs.String("json", "", "also write the verdicts as JSON to `FILE`")
	failOn := fs.String("fail-on", "", "also fail on `inconclusive` verdicts")
	allowDifferent := fs.Bool("allow-different-baseline", false, "compare with a baseline of another suite or plan anyway")
	wide := fs.Bool("wide", false, "add each row's estimator, spreads, test and interval to the table (about 170 columns)")
	var only stringList
	fs.Var(&only, "only", "CURRENT was narrowed to the runs or scenarios called `NAME` (repeatable)")
	varFlags := varFlag(fs)
	limit := inputLimitFlag(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	defer limit()()
	if len(pos) != 2 {
		return usagef("compare needs BASELINE and CURRENT results files (see llmgate help compare)")
	}
	vars, err := suiteVars(*varFlags)
	if err != nil {
		return err
	}
	if len(vars) > 0 && *suitePath == "" {
		return usagef("--var sets variables of the suite; pass --suite FILE too")
	}
	if *failOn != "" && *failOn != "inconclusive" {
		return usagef("--fail-on takes only \"inconclusive\", got %q", *failOn)
	}
	if *reportURL != "" {
		if err := report.CheckReportURL(*reportURL); err != nil {
			return usageErr(fmt.Errorf("--report-url: %w", err))
		}
	}
	if err := checkOutputs([]output{{"--markdown", *mdPath}, {"--json", *jsonPath}}, pos[0], pos[1], *suitePath, *rerunPath); err != nil {
		return err
	}
	cfg, err := cmpConfig(e, *suitePath, vars)
	if err != nil {
		return err
	}
	if *failOn == "inconclusive" {
		cfg.FailOnInconclusive = true
	}
	base, err := readResults(pos[0], "baseline")
	if err != nil {
		return err
	}
	cur, err := readResults(pos[1], "current")
	if err != nil {
		return err
	}
	cfg.Only = only
	in := judge.Input{Baseline: base, Current: cur, Config: cfg, AllowDifferent: *allowDifferent}
	if *rerunPath != "" {
		if in.Rerun, in.RerunBaseline, err = readRerun(*rerunPath, base, cur); err != nil {
			return err
		}
	}
	j, err := judge.Judge(in)
	if err != nil {
		return usageErr(err)
	}
	for _, n := range j.Notes {
		fmt.Fprintf(e.stderr, "llmgate: %s\n", n)
	}
	c := j.Comparison
	if err := report.Terminal(e.stdout, c, report.TerminalOptions{Wide: *wide}); err != nil {
		return err
	}
	if *mdPath != "" {
		if err := writeFileAtomic(*mdPath, []byte(report.Markdown(c, report.MarkdownOptions{ReportURL: *reportURL}))); err != nil {
			return err
		}
	}
	if *jsonPath != "" {
		b, err := json.MarshalIndent(c, "", "  ")
		if err != nil {
			return fmt.Errorf("encoding verdicts: %w", err)
		}
		if err := writeJSONFileAtomic(*jsonPath, append(b, '\n')); err != nil {
			return err
		}
	}
	switch j.Decision {
	case compare.DecisionFail:
		return errReported{exitGate}
	case compare.DecisionError:
		return errReported{exitInfra}
	}
	return nil
}

// readRerun reads the confirming rerun at path and, when base and cur are
// the two sides of an A/B job, the baseline side beside it.
func readRerun(path string, base, cur *results.File) (rerun, rerunBase *results.File, err error) {
	if rerun, err = readResults(path, "rerun"); err != nil {
		return nil, nil, err
	}
	if compare.DesignOf(base, cur) == compare.Paired {
		if rerunBase, err = readRerunBaseline(path, rerun); err != nil {
			return nil, nil, err
		}
	}
	return rerun, rerunBase, nil
}

// cmpConfig reads the gate block of the suite at path, or returns the defaults.
func cmpConfig(e *env, path string, vars map[string]string) (compare.Config, error) {
	if path == "" {
		return compare.DefaultConfig(), nil
	}
	s, diags, err := loadSuite(e, path, vars)
	if err != nil {
		return compare.Config{}, err
	}
	if diags.HasErrors() {
		return compare.Config{}, errReported{exitUsage}
	}
	return s.Gate.CompareConfig(), nil
}
