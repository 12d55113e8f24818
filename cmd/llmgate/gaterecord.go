package main

import (
	"path/filepath"

	"github.com/llmgate/llmgate/internal/runner"
	"github.com/llmgate/llmgate/results"
)

// recordVerdict writes the gate's verdict into the results file it wrote
// (-o; with --results only when -o was given), so that llmgate report on
// that file shows the gate's verdict (see reportVerdict). rerunPath is the
// confirming rerun's file, "" when none decided anything.
func (g *gateRun) recordVerdict(rerunPath string) error {
	out := g.out
	if g.o.out == "" || (!g.o.measured.on() && !g.resultsWritten()) {
		return nil
	}
	out.Current.Gate = gateVerdict(out, rerunPath, g.o.out)
	return results.WriteFile(g.o.out, out.Current)
}

// gateVerdict is the record of out's verdict in the results file at path.
func gateVerdict(out *runner.GateOutcome, rerunPath, path string) *results.GateVerdict {
	v := out.Record(out.Baseline)
	if rerunPath != "" {
		v.Rerun = relativeTo(path, rerunPath)
	}
	return v
}

// relativeTo is target as a path from the folder of the file at from,
// so that the two files may move together; target itself when it cannot
// be.
func relativeTo(from, target string) string {
	af, err1 := filepath.Abs(filepath.Dir(from))
	at, err2 := filepath.Abs(target)
	if err1 != nil || err2 != nil {
		return target
	}
	rel, err := filepath.Rel(af, at)
	if err != nil {
		return target
	}
	return rel
}
