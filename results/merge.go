package results

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/llmgate/llmgate/untrusted"
)

// ErrMerge is wrapped by every error Merge returns: the files cannot be
// merged (different suites or plans, overlapping shards, duplicate runs).
var ErrMerge = errors.New("cannot merge")

// MergeInput is one results file to merge and the name it goes by in
// messages (its path).
type MergeInput struct {
	Name string
	File *File
}

// Merge unions shard results files of one plan into one file. Each input is
// a shard's own file (llmgate run --shard i/n) or a merge of such files.
// It refuses, wrapping ErrMerge, files of different suites or plans (a
// different fingerprint, run count or shard count), files without shard
// information, a shard present twice, a run present twice, a run that its
// shard did not plan, and confirming reruns mixed with first measurements
// (PlanInfo.Rerun; reruns merge among themselves).
//
// Runs are copied whole, every field as read, so per-request samples travel
// with their run and every quantile is still computed from its own run's
// samples; a run is never split across shards, so nothing is averaged.
// Runs come in shard order. Each part keeps its shard's environment (see
// File.RunEnvironment); the merged file's Environment holds the fields on
// which every shard agrees, the others are empty, and each that differs is
// a warning. The merged file is Partial when a shard is missing, when a
// shard's file was partial, or when a planned run is missing.
func Merge(in []MergeInput) (*File, []error, error) {
	if len(in) == 0 {
		return nil, nil, fmt.Errorf("%w: no results files given", ErrMerge)
	}
	first := in[0]
	for _, x := range in {
		f := x.File
		switch {
		case f == nil:
			return nil, nil, fmt.Errorf("%w: %s: no results", ErrMerge, x.Name)
		case !f.Sharded():
			return nil, nil, fmt.Errorf("%w: %s holds no shard of a plan (write shard files with llmgate run --shard i/n)", ErrMerge, x.Name)
		case f.Suite.Name != first.File.Suite.Name:
			return nil, nil, fmt.Errorf("%w: %s is of suite %q, %s of suite %q", ErrMerge, x.Name, f.Suite.Name, first.Name, first.File.Suite.Name)
		case f.Plan.Fingerprint != first.File.Plan.Fingerprint || f.Plan.Runs != first.File.Plan.Runs:
			return nil, nil, fmt.Errorf("%w: %s and %s are of different plans (plan %s vs %s): the suite, its variables or --only differ between the shard jobs",
				ErrMerge, x.Name, first.Name, shortFingerprint(f.Plan.Fingerprint), shortFingerprint(first.File.Plan.Fingerprint))
		case f.Plan.Rerun != first.File.Plan.Rerun:
			return nil, nil, fmt.Errorf("%w: %s", ErrMerge, rerunMix(x, first))
		case f.Plan.Shards != first.File.Plan.Shards:
			return nil, nil, fmt.Errorf("%w: %s is split into %d shards, %s into %d", ErrMerge, x.Name, f.Plan.Shards, first.Name, first.File.Plan.Shards)
		case len(f.Plan.Parts) == 0:
			return nil, nil, fmt.Errorf("%w: %s says it is split into %d shards but names none", ErrMerge, x.Name, f.Plan.Shards)
		}
	}

	out := &File{
		Version: SchemaVersion,
		Suite:   first.File.Suite,
		Created: first.File.Created,
		Plan:    &PlanInfo{Fingerprint: first.File.Plan.Fingerprint, Runs: first.File.Plan.Runs, Shards: first.File.Plan.Shards, Rerun: first.File.Plan.Rerun},
		Runs:    []Run{},
	}
	shardFrom := map[int]int{}       // shard index → input index
	runFrom := map[string]string{}   // run name → input name
	plannedBy := map[string]string{} // run name → input name
	var envs []Environment
	for xi, x := range in {
		f := x.File
		if f.Created.Before(out.Created) {
			out.Created = f.Created
		}
		planned := map[string]bool{}
		for _, p := range f.Plan.Parts {
			if p.Shard < 1 || p.Shard > f.Plan.Shards {
				return nil, nil, fmt.Errorf("%w: %s holds shard %d of %d", ErrMerge, x.Name, p.Shard, f.Plan.Shards)
			}
			if prev, ok := shardFrom[p.Shard]; ok {
				return nil, nil, fmt.Errorf("%w: overlapping shards: %s and %s both hold shard %d/%d", ErrMerge, in[prev].Name, x.Name, p.Shard, f.Plan.Shards)
			}
			shardFrom[p.Shard] = xi
			for _, name := range p.Planned {
				if prev, ok := plannedBy[name]; ok {
					return nil, nil, fmt.Errorf("%w: run %q is planned by %s and by %s", ErrMerge, name, prev, x.Name)
				}
				plannedBy[name] = x.Name
				planned[name] = true
			}
			part := p
			part.Planned = slices.Clone(p.Planned)
			if part.Environment == nil {
				env := f.Environment
				part.Environment = &env
				part.Created, part.Partial = f.Created, f.Partial
			}
			envs = append(envs, *part.Environment)
			out.Partial = out.Partial || part.Partial
			out.Plan.Parts = append(out.Plan.Parts, part)
		}
		for i := range f.Runs {
			name := f.Runs[i].Name
			if prev, ok := runFrom[name]; ok {
				return nil, nil, fmt.Errorf("%w: duplicate run %q in %s and %s", ErrMerge, name, prev, x.Name)
			}
			if !planned[name] {
				return nil, nil, fmt.Errorf("%w: %s holds run %q, which none of its shards planned", ErrMerge, x.Name, name)
			}
			runFrom[name] = x.Name
		}
	}
	sort.SliceStable(out.Plan.Parts, func(i, j int) bool { return out.Plan.Parts[i].Shard < out.Plan.Parts[j].Shard })
	for _, p := range out.Plan.Parts {
		src := in[shardFrom[p.Shard]].File
		for i := range src.Runs {
			if slices.Contains(p.Planned, src.Runs[i].Name) {
				out.Runs = append(out.Runs, src.Runs[i]) // whole: every field as read
			}
		}
	}
	// A rerun holds the runs that needed confirming only: what it lacks is
	// not missing.
	if !out.Plan.Rerun && (len(out.Plan.MissingShards()) > 0 || len(out.MissingRuns()) > 0) {
		out.Partial = true
	}
	var warns []error
	out.Environment, warns = commonEnvironment(envs)
	return out, warns, nil
}

// rerunMix says which of two files is a confirming rerun.
func rerunMix(x, first MergeInput) string {
	rerun, plain := x.Name, first.Name
	if first.File.Plan.Rerun {
		rerun, plain = first.Name, x.Name
	}
	return fmt.Sprintf("%s holds a confirming rerun and %s first measurements: merge them separately (llmgate gate --results takes both)", rerun, plain)
}

// MissingRuns lists the runs the file's shards planned that it does not
// hold, in shard and plan order; runs of shards it does not hold at all are
// not known here (see PlanInfo.MissingShards).
func (f *File) MissingRuns() []string {
	if f.Plan == nil {
		return nil
	}
	have := make(map[string]bool, len(f.Runs))
	for i := range f.Runs {
		have[f.Runs[i].Name] = true
	}
	var missing []string
	for _, p := range f.Plan.Parts {
		for _, name := range p.Planned {
			if !have[name] {
				missing = append(missing, name)
			}
		}
	}
	return missing
}

// commonEnvironment keeps each field on which every environment agrees and
// warns about each comparability field that differs; the host and git
// fields may differ without a warning (runners have names of their own).
func commonEnvironment(envs []Environment) (Environment, []error) {
	if len(envs) == 0 {
		return Environment{}, nil
	}
	out := envs[0]
	var warns []error
	fields := []struct {
		name string
		get  func(*Environment) *untrusted.String
		warn bool
	}{
		{"git commit", func(e *Environment) *untrusted.String { return &e.GitSHA }, true},
		{"git ref", func(e *Environment) *untrusted.String { return &e.GitRef }, false},
		{"image", func(e *Environment) *untrusted.String { return &e.Image }, true},
		{"image digest", func(e *Environment) *untrusted.String { return &e.ImageDigest }, true},
		{"vLLM version", func(e *Environment) *untrusted.String { return &e.VLLMVersion }, true},
		{"model", func(e *Environment) *untrusted.String { return &e.Model }, false}, // one per server: may differ by design
		{"GPU", func(e *Environment) *untrusted.String { return &e.GPU }, true},
		{"target kind", func(e *Environment) *untrusted.String { return &e.TargetKind }, false},
		{"host", func(e *Environment) *untrusted.String { return &e.Host }, false},
		{"llmgate version", func(e *Environment) *untrusted.String { return &e.LLMGateVersion }, true},
	}
	for _, fd := range fields {
		var seen []string
		for i := range envs {
			if v := fd.get(&envs[i]).Line(); v != "" && !slices.Contains(seen, v) {
				seen = append(seen, v)
			}
		}
		if len(seen) > 1 {
			*fd.get(&out) = ""
			if fd.warn {
				warns = append(warns, fmt.Errorf("shards differ in %s: %s; each run keeps its shard's", fd.name, strings.Join(seen, ", ")))
			}
		}
	}
	return out, warns
}

// shortFingerprint is a fingerprint's first 12 hex digits, for messages.
func shortFingerprint(fp string) string {
	fp = strings.TrimPrefix(fp, "sha256:")
	if len(fp) > 12 {
		fp = fp[:12]
	}
	if fp == "" {
		return "(none)"
	}
	return fp
}
