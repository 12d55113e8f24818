package main

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/untrusted"
)

func init() {
	register(&command{
		name:    "baseline",
		summary: "promote a results file to be the baseline",
		usage:   "promote RESULTS --to FILE [flags]",
		help: `
Baseline promote copies RESULTS to FILE (written atomically) and records
where it came from: the source file, the commit (GITHUB_SHA, else
git rev-parse HEAD when in a git checkout), the image and the date. Commit
FILE to the repository, usually from the default branch, and point the
suite's gate block at it.

A partial results file (a run cut short) is refused unless --force, and
runs that are invalid or failed are named as a warning: a baseline with holes
makes later comparisons say "missing" or "invalid" instead of judging.

Examples:

  llmgate baseline promote results.json --to perf/baseline.json
  llmgate baseline promote results.json --to perf/baseline.json --image vllm/vllm-openai:v0.11.0`,
		run: runBaseline,
	})
}

func runBaseline(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 || args[0] != "promote" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			printHelp(e.stdout, commands["baseline"])
			return nil
		}
		return usagef("baseline needs the subcommand promote: llmgate baseline promote RESULTS --to FILE")
	}
	fs := newFlags(commands["baseline"], e)
	to := fs.String("to", "", "write the baseline to `FILE` (required)")
	image := fs.String("image", "", "record `IMAGE` as the baseline's image (default: the results' image)")
	force := fs.Bool("force", false, "promote a partial results file anyway")
	limit := inputLimitFlag(fs)
	pos, err := parseFlags(fs, args[1:])
	if err != nil {
		return err
	}
	defer limit()()
	if len(pos) != 1 || *to == "" {
		return usagef("baseline promote needs one RESULTS file and --to FILE")
	}
	if err := checkOutputs([]output{{"--to", *to}}, pos[0]); err != nil {
		return err
	}
	f, err := readResults(pos[0], "")
	if err != nil {
		return err
	}
	if f.Partial && !*force {
		return usagef("%s is partial (a run was cut short); rerun it, or pass --force to promote it anyway", pos[0])
	}
	for _, r := range f.Runs {
		if !r.Valid() {
			fmt.Fprintf(e.stderr, "warning: run %s is %s; comparisons will not judge it\n", r.Name, r.Status)
		}
	}
	prov := &results.Provenance{Source: pos[0], Commit: commitOf(ctx, e), Image: untrusted.String(*image), Promoted: time.Now().UTC()}
	if prov.Image == "" {
		prov.Image = f.Environment.Image
	}
	f.Provenance = prov
	if err := results.WriteFile(*to, f); err != nil {
		return fmt.Errorf("writing baseline: %w", err)
	}
	fmt.Fprintf(e.stdout, "promoted %s to %s (%d runs", pos[0], *to, len(f.Runs))
	if prov.Commit != "" {
		fmt.Fprintf(e.stdout, ", commit %s", prov.Commit)
	}
	fmt.Fprintln(e.stdout, ")")
	return nil
}

// commitOf is GITHUB_SHA, else the checkout's HEAD, else "".
func commitOf(ctx context.Context, e *env) string {
	if sha := e.getenv("GITHUB_SHA"); sha != "" {
		return sha
	}
	out, err := exec.CommandContext(ctx, "git", "rev-parse", "HEAD").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
