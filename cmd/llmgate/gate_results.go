package main

import (
	"flag"
	"fmt"

	"github.com/llmgate/llmgate/internal/runner"
	"github.com/llmgate/llmgate/internal/suite"
)

// resultsFlags is gate's --results: judge results measured elsewhere.
type resultsFlags struct {
	files stringList
	// outSet is whether -o was given: with --results the gate writes the
	// judged (merged) file only where it is told to.
	outSet bool
}

func (f *resultsFlags) register(fs *flag.FlagSet) {
	fs.Var(&f.files, "results", "judge the results `FILE` instead of running the suite: a merged file, or each shard's file (repeatable; merged as by llmgate merge)")
}

func (f *resultsFlags) on() bool { return len(f.files) > 0 }

// checkGiven checks the flags that go with --results and with --shard.
// With --results nothing runs, so --shard and --target make no sense; -o,
// when given, is where the judged file is written. A shard's gate judges
// part of the suite, so it leaves the pull-request comment to the gate that
// judges all of it.
func (o *gateOptions) checkGiven(fs *flag.FlagSet, e *env) error {
	fs.Visit(func(fl *flag.Flag) {
		if fl.Name == "o" {
			o.measured.outSet = true
		}
	})
	switch {
	case o.measured.on() && o.shard.shard != nil:
		return usagef("--shard runs one shard and --results judges results that ran elsewhere: give one of them")
	case o.measured.on() && o.targetURL != "":
		return usagef("--target sends runs to a server and --results judges results that ran elsewhere: give one of them")
	}
	if o.shard.shard != nil && o.comment {
		o.comment = false
		fmt.Fprintf(e.stderr, "llmgate: no pull-request comment from shard %s: the gate on the merged results comments once\n", o.shard.shard)
	}
	if !o.measured.on() {
		return nil
	}
	if !o.measured.outSet {
		o.out = ""
		if o.markdown == "" && e.getenv("GITHUB_ACTIONS") == "true" {
			o.markdown = siblingPath(o.measured.files[0], ".md")
		}
	}
	return nil
}

// judgeGiven reads the --results files and judges them with
// runner.GateResults; files that do not fit the suite are bad usage. With
// -o the judged file (the merge, when there were several) is written there,
// with the verdict (recordVerdict).
func (g *gateRun) judgeGiven(s *suite.Suite, opts runner.GateOptions) (*runner.GateOutcome, error) {
	in, err := readShardFiles(g.o.measured.files)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(g.e.stdout, "llmgate: judging %d results file(s) measured elsewhere; nothing runs\n", len(in))
	var reruns []string
	for _, x := range in {
		if x.File.Plan != nil && x.File.Plan.Rerun {
			reruns = append(reruns, x.Name)
		}
	}
	if len(reruns) == 1 {
		g.givenRerun = reruns[0]
	}
	return runner.GateResults(s.Runnable(), in, opts) // -o: recordVerdict writes the judged file with the verdict
}
