package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/internal/judge"
	"github.com/llmgate/llmgate/internal/report"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/untrusted"
)

// reportVerdict is what llmgate report says of a comparison: the one
// judge's judgement of the files, and the gate's recorded verdict when the
// judgement does not reproduce it.
type reportVerdict struct {
	j *judge.Judgement
	// gate is the verdict a gate recorded on the current file against
	// this baseline, when j differs from it; nil when j reproduces it or
	// no gate recorded one.
	gate *results.GateVerdict
	// recorded is whether a gate recorded a verdict against this baseline.
	recorded bool
	// caveats say why j may not be the gate's verdict (no --suite, no
	// rerun); each is also a warning of j's comparison.
	caveats []string
}

// reportInput is what judgeReport judges.
type reportInput struct {
	resultsPath, basePath string
	cur, base             *results.File
	cfg                   compare.Config
	// suiteGiven is whether cfg is a suite's gate block (--suite) rather
	// than the defaults.
	suiteGiven bool
	// rerunPath is --rerun; "" takes the rerun the gate recorded.
	rerunPath      string
	allowDifferent bool
}

// judgeReport judges a report's files through the one judge, with the
// confirming rerun the gate recorded beside the results (or --rerun), and
// says where that judgement cannot be the gate's.
func judgeReport(in reportInput) (*reportVerdict, error) {
	v := &reportVerdict{}
	rec := in.cur.Gate
	if rec != nil && !rec.Baseline.Is(in.base) {
		against := "no baseline (the asserts only)"
		if rec.Baseline != nil {
			against = "another baseline (written " + rec.Baseline.Created.UTC().Format(time.RFC3339) + ")"
		}
		v.caveats = append(v.caveats, fmt.Sprintf("%s records a gate's verdict against %s, not %s: it is not shown", in.resultsPath, against, in.basePath))
		rec = nil
	}
	v.recorded = rec != nil
	ji := judge.Input{Baseline: in.base, Current: in.cur, Config: in.cfg, AllowDifferent: in.allowDifferent}
	var err error
	switch {
	case in.rerunPath != "":
		if ji.Rerun, ji.RerunBaseline, err = readRerun(in.rerunPath, in.base, in.cur); err != nil {
			return nil, err
		}
	case rec != nil && rec.Rerun != "":
		// The file names it, and the file may come from anywhere: a rerun
		// that cannot be read is a caveat, not the report's failure.
		path := rec.Rerun
		if !filepath.IsAbs(path) {
			path = filepath.Join(filepath.Dir(in.resultsPath), path)
		}
		if ji.Rerun, ji.RerunBaseline, err = readRerun(path, in.base, in.cur); err != nil {
			v.caveats = append(v.caveats, fmt.Sprintf("cannot use the gate's confirming rerun %s (give it with --rerun): %v", untrusted.Line(rec.Rerun), err))
			ji.Rerun, ji.RerunBaseline = nil, nil
		}
	}
	j, err := judge.Judge(ji)
	if err != nil {
		return nil, usageErr(err)
	}
	v.j = j
	if !in.suiteGiven {
		v.caveats = append(v.caveats, "the bands are the defaults (no --suite): a gate judges with its suite's gate block")
	}
	if runs := j.Comparison.RerunRuns(); len(runs) > 0 {
		v.caveats = append(v.caveats, fmt.Sprintf("%s asks for a confirming rerun, which this report was not given (--rerun): a gate that made one may decide otherwise", strings.Join(runs, ", ")))
	}
	if rec != nil && !j.Reproduces(rec, in.base) {
		v.gate = rec
		v.caveats = append([]string{fmt.Sprintf("the gate's verdict is recorded in %s; this report's comparison does not reproduce it and finds %s", in.resultsPath, report.Headline(j.Comparison))}, v.caveats...)
	}
	if rec != nil && v.gate == nil {
		v.caveats = nil // the gate's verdict, reproduced: nothing to warn of
	}
	for _, c := range v.caveats {
		j.Comparison.Warnings = append(j.Comparison.Warnings, errors.New(c))
	}
	return v, nil
}

// headline is the verdict line the report prints.
func (v *reportVerdict) headline(resultsPath string) string {
	switch {
	case v.gate != nil:
		return fmt.Sprintf("verdict: %s (the gate's, recorded in %s)", report.GateHeadline(v.gate), resultsPath)
	case v.recorded:
		return fmt.Sprintf("verdict: %s (the gate's, recorded in %s, reproduced)", report.Headline(v.j.Comparison), resultsPath)
	}
	return "verdict: " + report.Headline(v.j.Comparison)
}
