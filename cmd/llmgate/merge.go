package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/llmgate/llmgate/results"
)

func init() {
	register(&command{
		name:    "merge",
		summary: "merge the results files of a suite's shards into one",
		usage:   "FILE... -o FILE",
		help: `
Merge unions the results files that the shard jobs of one suite wrote
(llmgate run SUITE --shard I/N) into one file, for 'llmgate gate SUITE
--results FILE' or 'llmgate report'. Each run is copied whole with its
per-request samples: a run never spans two shards, so every quantile is still
computed from its own requests, never averaged across shards. Each shard's
environment (runner host, GPU, image digest) is kept with its runs; the merged
file's environment holds what all shards share, and a difference that matters
for comparisons (GPU, image, vLLM version) is a warning.

Merge refuses (exit 2) files of different suites or plans (the suite file,
its --var values or --only differ between the jobs), the same shard twice, a
run twice, and files that are no shard at all. A shard that is missing, or
that was cut short, leaves the merged file partial: merge says which, and so
does the gate.

Merged files merge again, so shards may be merged as they arrive.

Examples:
  llmgate merge shard-1.json shard-2.json shard-3.json -o all.json
  llmgate merge results/*/results.json -o all.json`,
		run: runMerge,
	})
}

func runMerge(ctx context.Context, e *env, args []string) error {
	fs := newFlags(commands["merge"], e)
	out := fs.String("o", "", "write the merged results file to `FILE` (required)")
	limit := inputLimitFlag(fs)
	files, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	defer limit()()
	if len(files) == 0 || *out == "" {
		return usagef("merge needs the shards' results files and -o FILE (see llmgate help merge)")
	}
	if err := checkOutputs([]output{{"-o", *out}}, files...); err != nil {
		return err
	}
	in, err := readShardFiles(files)
	if err != nil {
		return err
	}
	m, warns, err := results.Merge(in)
	if err != nil {
		return usageErr(err)
	}
	for _, w := range warns {
		fmt.Fprintf(e.stderr, "llmgate: warning: %v\n", w)
	}
	if err := results.WriteFile(*out, m); err != nil {
		return err
	}
	var shards []string
	for _, p := range m.Plan.Parts {
		shards = append(shards, fmt.Sprint(p.Shard))
	}
	fmt.Fprintf(e.stdout, "merged %d file(s), shard(s) %s of %d, %d run(s) of %d, into %s\n",
		len(files), strings.Join(shards, ", "), m.Plan.Shards, len(m.Runs), m.Plan.Runs, *out)
	if missing := m.Plan.MissingShards(); len(missing) > 0 {
		var names []string
		for _, i := range missing {
			names = append(names, fmt.Sprintf("%d/%d", i, m.Plan.Shards))
		}
		fmt.Fprintf(e.stderr, "llmgate: warning: partial: no results for shard(s) %s\n", strings.Join(names, ", "))
	}
	if runs := m.MissingRuns(); len(runs) > 0 {
		fmt.Fprintf(e.stderr, "llmgate: warning: partial: planned runs without results: %s\n", strings.Join(runs, ", "))
	}
	for _, p := range m.Plan.Parts {
		if p.Partial {
			fmt.Fprintf(e.stderr, "llmgate: warning: partial: shard %d/%d was cut short\n", p.Shard, m.Plan.Shards)
		}
	}
	return nil
}

// readShardFiles reads each results file (a problem is bad usage, exit 2),
// refusing a path given twice.
func readShardFiles(paths []string) ([]results.MergeInput, error) {
	seen := map[string]bool{}
	var in []results.MergeInput
	for _, p := range paths {
		if seen[p] {
			return nil, usageErr(fmt.Errorf("%w: %s is given twice", results.ErrMerge, p))
		}
		seen[p] = true
		f, err := readResults(p, "shard")
		if err != nil {
			return nil, err
		}
		in = append(in, results.MergeInput{Name: p, File: f})
	}
	if len(in) == 0 {
		return nil, usageErr(errors.New("no results files given"))
	}
	return in, nil
}
