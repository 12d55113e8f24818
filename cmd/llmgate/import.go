package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/llmgate/llmgate/results"
)

func init() {
	register(&command{
		name:    "import",
		summary: "convert vllm bench serve results into a results file",
		usage:   "vllm-bench FILE.json... -o results.json [flags]",
		help: `
Import vllm-bench converts the JSON that vllm bench serve --save-result
writes into an llmgate results file, one run per input file, so numbers you
already have can seed a baseline (llmgate baseline promote).

With --save-detailed the per-request arrays become samples (TTFT from ttfts,
E2EL as TTFT plus the inter-token gaps, TPOT as those gaps over output tokens
minus one; failed requests left out), so comparisons get significance tests.
Without it only vLLM's statistics are kept and comparisons use bands alone.
vLLM's files have no p95 unless run with --metric-percentiles 50,90,95,99.

Each run is named after its file (without .json) unless --name is given
(with several files, --name is used as a prefix: NAME-1, NAME-2, ...). A
file written with --append-result holds several results one after another:
each becomes a run of its own, its name followed by -1, -2, ... in file
order; --pick N imports only the N-th (named as a file of one result).

Each run records that it was imported from vllm bench serve, with its
backend and its date as vLLM wrote it: the local time of the benchmark
machine, whose zone it does not say (so the run has no start time). A
comparison against an imported run marks its rows: vllm bench's chat
figures are not computed quite as llmgate's (see docs/running.md).

Examples:

  llmgate import vllm-bench bench.json -o results.json
  llmgate import vllm-bench --name chat bench-detailed.json -o baseline.json
  llmgate import vllm-bench --pick 3 sweep-appended.json -o baseline.json`,
		run: runImport,
	})
}

func runImport(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 || args[0] != "vllm-bench" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			printHelp(e.stdout, commands["import"])
			return nil
		}
		return usagef("import needs a format; the one supported is vllm-bench: llmgate import vllm-bench FILE.json -o results.json")
	}
	fs := newFlags(commands["import"], e)
	out := fs.String("o", "", "write the results file to `FILE` (required)")
	name := fs.String("name", "", "run `NAME` (default: the input file's name)")
	pick := fs.Int("pick", 0, "import only the `N`-th result of each file written with --append-result (from 1)")
	limit := inputLimitFlag(fs)
	files, err := parseFlags(fs, args[1:])
	if err != nil {
		return err
	}
	defer limit()()
	if *pick < 0 {
		return usagef("--pick %d: want the number of a result, from 1", *pick)
	}
	if len(files) == 0 || *out == "" {
		return usagef("import vllm-bench needs at least one FILE.json and -o results.json")
	}
	if err := checkOutputs([]output{{"-o", *out}}, files...); err != nil {
		return err
	}
	var merged *results.File
	seen := map[string]string{}
	for i, path := range files {
		raw, err := results.ReadInput(path)
		if err != nil {
			return usagef("import: %w", err)
		}
		all, err := results.ParseVLLMBenchAll(raw)
		if err != nil {
			return usagef("import %s: %w", path, err)
		}
		if *pick > 0 {
			if *pick > len(all) {
				return usagef("import %s: --pick %d, but the file holds %d result(s)", path, *pick, len(all))
			}
			all = all[*pick-1 : *pick]
		}
		base := strings.TrimSuffix(filepath.Base(path), ".json")
		switch {
		case *name != "" && len(files) == 1:
			base = *name
		case *name != "":
			base = fmt.Sprintf("%s-%d", *name, i+1)
		}
		for j, b := range all {
			run := base
			if len(all) > 1 {
				run = fmt.Sprintf("%s-%d", base, j+1)
			}
			if prev, dup := seen[run]; dup {
				return usagef("import: %s and %s would both be run %q; give each file its own name, or use --name", prev, path, run)
			}
			seen[run] = path
			f := b.File(run)
			if !b.Detailed() {
				fmt.Fprintf(e.stderr, "note: %s has no per-request data (--save-detailed); comparisons against it use bands alone\n", run)
				if missing := b.MissingStats(); len(missing) > 0 {
					fmt.Fprintf(e.stderr, "note: %s lacks %s (vllm bench serve --percentile-metrics ttft,tpot,itl,e2el --metric-percentiles 50,90,95,99 saves them); comparisons leave those out\n",
						run, strings.Join(missing, ", "))
				}
			}
			if merged == nil {
				merged = f
			} else {
				merged.Runs = append(merged.Runs, f.Runs...)
			}
		}
	}
	if err := merged.Check(); err != nil {
		return usagef("import: %w", err)
	}
	if err := results.WriteFile(*out, merged); err != nil {
		return fmt.Errorf("writing %s: %w", *out, err)
	}
	fmt.Fprintf(e.stdout, "imported %d run(s) into %s\n", len(merged.Runs), *out)
	return nil
}
