package main

import (
	"bytes"
	"context"
	"fmt"
	"os"

	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/internal/report"
	"github.com/llmgate/llmgate/results"
)

func init() {
	register(&command{
		name:    "report",
		summary: "write a self-contained HTML report of a results file",
		usage:   "RESULTS [flags]",
		help: `
Report renders RESULTS as one HTML file that opens anywhere, offline: the
run table, the throughput–latency curve of each sweep, latency CDFs of every
run from its per-request samples, failed asserts and, with --baseline, the
comparison and its verdicts (bands from --suite's gate block, or defaults)
with the baseline's curves drawn dashed beside the current ones, and prints
the verdict line.

It judges as llmgate gate and llmgate compare do (one judge), with the
confirming rerun given as --rerun, else the one the gate recorded in RESULTS
when it lies beside it. When RESULTS records the verdict of a gate against
this baseline (llmgate gate -o writes it) and the report's own judgement is
another (no --suite, so default bands; the rerun not found), the verdict
shown is the gate's, and the report says what its own comparison finds and
why it differs; without --baseline the page and the verdict line are the
gate's recorded verdict. A BASELINE of another suite or plan is refused as compare
refuses it (--allow-different-baseline compares anyway).

The exit code is 0 whenever the report was written; use llmgate compare to
gate.

Examples:

  llmgate report results.json -o report.html
  llmgate report results.json --baseline perf/baseline.json -o report.html
  llmgate report results.json --baseline perf/baseline.json --suite perf/gate.hcl -o report.html`,
		run: runReport,
	})
}

func runReport(ctx context.Context, e *env, args []string) error {
	fs := newFlags(commands["report"], e)
	out := fs.String("o", "report.html", "write the HTML report to `FILE`")
	basePath := fs.String("baseline", "", "baseline results `FILE` to compare with")
	suitePath := fs.String("suite", "", "suite `FILE` whose gate block gives bands and alpha")
	rerunPath := fs.String("rerun", "", "results `FILE` of a confirming rerun (default: the one the gate recorded in RESULTS)")
	allowDifferent := fs.Bool("allow-different-baseline", false, "compare with a baseline of another suite or plan anyway")
	varFlags := varFlag(fs)
	limit := inputLimitFlag(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	defer limit()()
	if len(pos) != 1 {
		return usagef("report needs one RESULTS file (see llmgate help report)")
	}
	vars, err := suiteVars(*varFlags)
	if err != nil {
		return err
	}
	if !flagSet(fs, "o") {
		// A report is rewritten freely only where it was asked for.
		if _, err := os.Stat(*out); err == nil {
			return usagef("%s exists: pass -o %s to replace it, or -o another path", *out, *out)
		}
	}
	if (*suitePath != "" || *rerunPath != "") && *basePath == "" {
		return usagef("--suite and --rerun are of a comparison; pass --baseline FILE too, or leave them out")
	}
	if err := checkOutputs([]output{{"-o", *out}}, pos[0], *basePath, *suitePath, *rerunPath); err != nil {
		return err
	}
	cur, err := readResults(pos[0], "current")
	if err != nil {
		return err
	}
	var c *compare.Comparison
	var base *results.File
	var v *reportVerdict
	var opts report.HTMLOptions
	if *basePath != "" {
		base, err = readResults(*basePath, "baseline")
		if err != nil {
			return err
		}
		cfg, err := cmpConfig(e, *suitePath, vars)
		if err != nil {
			return err
		}
		v, err = judgeReport(reportInput{resultsPath: pos[0], basePath: *basePath, cur: cur, base: base, cfg: cfg, suiteGiven: *suitePath != "",
			rerunPath: *rerunPath, allowDifferent: *allowDifferent})
		if err != nil {
			return err
		}
		c, opts.Gate = v.j.Comparison, v.gate
	} else {
		opts.Gate = cur.Gate // no comparison to reproduce it: the gate's verdict as it recorded it
	}
	var b bytes.Buffer
	if err := report.HTMLWith(&b, cur, base, c, opts); err != nil {
		return err
	}
	if err := writeFileAtomic(*out, b.Bytes()); err != nil {
		return err
	}
	if v != nil {
		for _, n := range append(v.j.Notes, v.caveats...) {
			fmt.Fprintf(e.stderr, "llmgate: %s\n", n)
		}
		fmt.Fprintln(e.stdout, v.headline(pos[0]))
	} else if cur.Gate != nil {
		fmt.Fprintf(e.stdout, "verdict: %s (the gate's, recorded in %s; --baseline shows its comparison)\n", report.GateHeadline(cur.Gate), pos[0])
	}
	fmt.Fprintf(e.stdout, "wrote %s (%s)\n", *out, countRuns(len(cur.Runs)))
	return nil
}

// countRuns says how many runs, in words: "1 run", "3 runs".
func countRuns(n int) string {
	if n == 1 {
		return "1 run"
	}
	return fmt.Sprintf("%d runs", n)
}
