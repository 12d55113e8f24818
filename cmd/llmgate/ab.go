package main

import (
	"fmt"
	"maps"

	"github.com/llmgate/llmgate/internal/runner"
	"github.com/llmgate/llmgate/internal/suite"
)

// abFlagHelp is --ab-var's help text, shared by run and gate.
const abFlagHelp = "measure an A/B in one job: the baseline side's suite variable `NAME=VALUE` (repeatable); the candidate side takes --var and the defaults"

// abSetup loads the baseline side of an A/B run: the suite under --var
// with --ab-var on top, its plan cut as the candidate's (--only,
// --shard). It returns nil when no --ab-var was given; a suite that does
// not load is bad usage (exit 2). The A/B job is resolved and checked
// (runner.ResolveAB) by the caller, before anything starts.
func (f *runFlags) abSetup(e *env, cand *suite.Suite, candVars map[string]string) (*runner.ABOptions, error) {
	if len(f.abVars) == 0 {
		return nil, nil
	}
	abVars, err := suiteVars(f.abVars)
	if err != nil {
		return nil, usageErr(fmt.Errorf("--ab-var: %w", err))
	}
	vars := maps.Clone(candVars)
	maps.Copy(vars, abVars)
	fmt.Fprintln(e.stderr, "llmgate: loading the baseline side (--ab-var):")
	base, diags, err := loadSuite(e, cand.Filename, vars)
	if err != nil {
		return nil, err
	}
	if diags.HasErrors() {
		return nil, errReported{exitUsage}
	}
	plan, err := f.plan(base)
	if err != nil {
		return nil, err
	}
	plan, _ = runner.ShardPlan(plan, f.shard.shard)
	return &runner.ABOptions{Baseline: base.Runnable(), BaselinePlan: plan, BaselineVars: vars, CandidateVars: candVars}, nil
}
