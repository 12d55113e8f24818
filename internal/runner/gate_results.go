package runner

import (
	"errors"
	"fmt"
	"strings"

	"github.com/llmgate/llmgate/internal/plan"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/untrusted"
)

// ErrResultsFiles is wrapped by the error GateResults returns when the
// given files cannot be judged as results of the suite's plan.
var ErrResultsFiles = errors.New("results do not fit the suite")

// GateResults is Gate on results measured elsewhere: it judges the given
// files (shard files of the plan, merged here, a merged file, or one
// whole-plan file) against the baseline as Gate judges its own run, without
// running anything. The plan is opts.Plan, else the suite's; the files must
// be of that plan (the same fingerprint: the same suite, variables and
// --only). opts.Options runs nothing: only Plan is read.
//
// The error, wrapping ErrResultsFiles or results.ErrMerge, is not nil when
// the baseline cannot be read or the files are of another suite or plan,
// overlap or repeat a run. Runs of the plan that the files lack (a shard
// that never uploaded, a shard cut short) are a problem that makes the
// verdict compare.DecisionError unless something failed the gate anyway, and the
// outcome says which runs, by shard.
//
// Confirm-by-rerun needs the runners that measured the runs. A shard job
// that gated its own shard (llmgate gate --shard I/N) made that rerun on its
// runner and wrote it beside its results (NAME.rerun.json, marked
// PlanInfo.Rerun); given among the files, such reruns confirm the changes
// as Gate's own rerun would (compare.Confirm). A change that needs a rerun
// no file holds stays inconclusive, with a note: with --fail-on
// inconclusive it fails the gate, else it passes as inconclusive.
func GateResults(s *plan.Suite, files []results.MergeInput, opts GateOptions) (*GateOutcome, error) {
	g := &gate{opts: opts, out: &GateOutcome{}}
	if err := g.readBaseline(s); err != nil {
		return nil, err
	}
	plan := opts.Plan
	if plan == nil {
		plan = s.Plan()
	}
	firsts, reruns := splitReruns(files)
	if len(firsts) == 0 {
		return nil, fmt.Errorf("%w: only confirming reruns given; give the results files they confirm too", ErrResultsFiles)
	}
	cur, err := fileToJudge(firsts, g.note)
	if err != nil {
		return nil, err
	}
	if err := fitsPlan(s, plan, cur, firsts); err != nil {
		return nil, err
	}
	var rerun *results.File
	if len(reruns) > 0 {
		if rerun, err = fileToJudge(reruns, g.note); err != nil {
			return nil, err
		}
		if err := fitsPlan(s, plan, rerun, reruns); err != nil {
			return nil, err
		}
	}
	if note := shardsNote(cur); note != "" {
		g.note(note)
	}
	out := g.out
	var skipped []string
	out.Baseline, skipped = baselineForPlan(out.Baseline, s.Plan(), plan)
	if note := skippedNote(skipped); note != "" {
		g.note(note)
	}
	var runErr error
	if missing := missingRuns(plan, cur); len(missing) > 0 {
		cur.Partial = true
		runErr = fmt.Errorf("runs missing from the results files: %s", strings.Join(missing, "; "))
	}
	cfg := s.Gate.CompareConfig()
	if opts.FailOnInconclusive {
		cfg.FailOnInconclusive = true
	}
	out.Current = cur
	g.judge(cfg, runErr, nil, rerun) // the rerun confirms what asks for one
	if names := out.Comparison.RerunRuns(); out.Baseline != nil && len(names) > 0 {
		g.note(fmt.Sprintf("%s changed by less than a single run can call; confirming that takes a rerun on the runner that measured it, "+
			"which a gate on results measured elsewhere cannot make, so the change stays inconclusive (a shard job that gates its shard, llmgate gate --shard I/N, "+
			"makes that rerun and writes it beside its results as NAME.rerun.json: give that file too)",
			strings.Join(names, ", ")))
	}
	return out, nil
}

// shardsNote says which shards the results hold and where each ran; ""
// for results of an unsplit plan.
func shardsNote(f *results.File) string {
	if !f.Sharded() {
		return ""
	}
	var parts []string
	for _, p := range f.Plan.Parts {
		where := "where unknown"
		if e := p.Environment; e != nil {
			var bits []string
			for _, v := range []untrusted.String{e.Host, e.GPU, e.ImageDigest} {
				if v != "" {
					bits = append(bits, v.Line())
				}
			}
			if len(bits) > 0 {
				where = strings.Join(bits, ", ")
			}
		}
		parts = append(parts, fmt.Sprintf("shard %d/%d on %s", p.Shard, f.Plan.Shards, where))
	}
	return fmt.Sprintf("results measured elsewhere, %d of %d shard(s): %s", len(f.Plan.Parts), f.Plan.Shards, strings.Join(parts, "; "))
}

// splitReruns separates the confirming reruns from the first measurements.
func splitReruns(files []results.MergeInput) (firsts, reruns []results.MergeInput) {
	for _, x := range files {
		if x.File != nil && x.File.Plan != nil && x.File.Plan.Rerun {
			reruns = append(reruns, x)
		} else {
			firsts = append(firsts, x)
		}
	}
	return firsts, reruns
}

// fileToJudge is the one file to judge: a single unsplit file as it is,
// else the merge of the given shard files (or merged files), whose
// warnings become notes.
func fileToJudge(files []results.MergeInput, note func(string)) (*results.File, error) {
	if len(files) == 0 {
		return nil, fmt.Errorf("%w: no results files given", ErrResultsFiles)
	}
	if len(files) == 1 && !files[0].File.Sharded() {
		return files[0].File, nil
	}
	cur, warns, err := results.Merge(files)
	if err != nil {
		return nil, err
	}
	for _, w := range warns {
		note(w.Error())
	}
	return cur, nil
}

// fitsPlan checks that cur holds results of plan: the suite's name, and
// the plan's fingerprint where the file records one.
func fitsPlan(s *plan.Suite, plan *plan.Plan, cur *results.File, files []results.MergeInput) error {
	names := make([]string, len(files))
	for i, x := range files {
		names[i] = x.Name
	}
	from := strings.Join(names, ", ")
	if cur.Suite.Name != s.Name {
		return fmt.Errorf("%w: %s holds results of suite %q, not %q", ErrResultsFiles, from, cur.Suite.Name, s.Name)
	}
	if cur.Plan != nil && cur.Plan.Fingerprint != plan.Fingerprint() {
		return fmt.Errorf("%w: %s holds results of another plan of suite %q: give the gate the same suite file, --var and --only as the jobs that ran it",
			ErrResultsFiles, from, s.Name)
	}
	in := map[string]bool{}
	for _, r := range plan.Runs() {
		in[r.Name] = true
	}
	for i := range cur.Runs {
		if !in[cur.Runs[i].Name] {
			return fmt.Errorf("%w: %s holds run %q, which the suite's plan does not have", ErrResultsFiles, from, cur.Runs[i].Name)
		}
	}
	return nil
}
