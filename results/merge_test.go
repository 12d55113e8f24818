package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const testFingerprint = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// measuredRun is a run whose summary and samples come from n requests with
// lognormal-ish latencies around ttftMS and a fixed ITL, as the runner
// records them.
func measuredRun(name string, seed uint64, n int, ttftMS float64) Run {
	rng := rand.New(rand.NewPCG(seed, 1))
	recs := make([]Record, n)
	for i := range recs {
		ttft := time.Duration(ttftMS * (0.5 + rng.Float64()) * float64(time.Millisecond))
		itl := []float64{}
		for range 15 {
			itl = append(itl, 8+4*rng.Float64())
		}
		recs[i] = Record{Seq: i, Sent: time.Duration(i) * 10 * time.Millisecond, TTFT: ttft,
			E2EL: ttft + 150*time.Millisecond, ITL: itl, InputTokens: 64, OutputTokens: 16}
	}
	return Run{
		Name: name, Scenario: strings.Split(name, "[")[0], Target: "simulator.sim", Status: StatusOK,
		Started:  time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC),
		Finished: time.Date(2026, 12, 1, 9, 0, 5, 0, time.UTC),
		Summary:  Summarize(recs, SummarizeOptions{}),
		Asserts:  []AssertResult{{Name: "fast", Passed: true, Condition: "ttft.p95 < 500", Values: map[string]float64{"ttft.p95": 1}}},
		Samples:  NewSamples(recs),
	}
}

// shardFile is shard i of n of a three-shard test plan.
func shardFile(i, n int, env Environment, planned []string, runs ...Run) *File {
	return &File{
		Version: SchemaVersion, Suite: SuiteInfo{Name: "s", File: "s.hcl"}, Environment: env,
		Created: time.Date(2026, 12, 1, 9, i, 0, 0, time.UTC),
		Plan:    &PlanInfo{Fingerprint: testFingerprint, Runs: 4, Shards: n, Parts: []ShardPart{{Shard: i, Planned: planned}}},
		Runs:    runs,
	}
}

// roundTrip writes f and reads it back, as the CLI does between jobs.
func roundTrip(t *testing.T, f *File) *File {
	t.Helper()
	var b bytes.Buffer
	if err := f.Write(&b); err != nil {
		t.Fatal(err)
	}
	g, err := Read(&b)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func runJSON(t *testing.T, r *Run) string {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func threeShards() (a, b, c *File) {
	a = shardFile(1, 3, Environment{GPU: "H100", Host: "runner-1", ImageDigest: "sha256:aa"}, []string{"x[c=1]", "x[c=2]"},
		measuredRun("x[c=1]", 1, 200, 40), measuredRun("x[c=2]", 2, 300, 80))
	b = shardFile(2, 3, Environment{GPU: "H100", Host: "runner-2", ImageDigest: "sha256:aa"}, []string{"y"},
		measuredRun("y", 3, 250, 60))
	c = shardFile(3, 3, Environment{GPU: "H100", Host: "runner-3", ImageDigest: "sha256:aa"}, []string{"z"},
		measuredRun("z", 4, 100, 20))
	return a, b, c
}

func TestMergeCopiesEveryRunWhole(t *testing.T) {
	a, b, c := threeShards()
	a, b, c = roundTrip(t, a), roundTrip(t, b), roundTrip(t, c)
	// Given out of order: runs come back in shard order.
	m, warns, err := Merge([]MergeInput{{"c.json", c}, {"a.json", a}, {"b.json", b}})
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 0 {
		t.Errorf("warnings for shards that differ only by host: %v", warns)
	}
	m = roundTrip(t, m)
	var want, got []string
	for _, f := range []*File{a, b, c} {
		for i := range f.Runs {
			want = append(want, runJSON(t, &f.Runs[i]))
		}
	}
	for i := range m.Runs {
		got = append(got, runJSON(t, &m.Runs[i]))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("merged runs are not the shards' runs byte for byte (-want +got):\n%s", diff)
	}
	if m.Partial || len(m.MissingRuns()) > 0 || len(m.Plan.MissingShards()) > 0 {
		t.Errorf("complete merge: partial %v, missing runs %v, missing shards %v", m.Partial, m.MissingRuns(), m.Plan.MissingShards())
	}
	if m.Plan.Fingerprint != testFingerprint || m.Plan.Shards != 3 || len(m.Plan.Parts) != 3 {
		t.Errorf("plan %+v", m.Plan)
	}
	// Each shard's environment stays with its runs; the file keeps what
	// they share.
	if got := m.RunEnvironment("y").Host; got != "runner-2" {
		t.Errorf("y ran on %q, want runner-2", got)
	}
	if got := m.RunEnvironment("x[c=2]").Host; got != "runner-1" {
		t.Errorf("x[c=2] ran on %q, want runner-1", got)
	}
	if m.Environment.Host != "" || m.Environment.GPU != "H100" || m.Environment.ImageDigest != "sha256:aa" {
		t.Errorf("merged environment %+v: want the shared GPU and digest, no host", m.Environment)
	}
	if !m.Created.Equal(a.Created) {
		t.Errorf("created %v, want the earliest shard's %v", m.Created, a.Created)
	}
	// A merge of merges is the same merge.
	ab, _, err := Merge([]MergeInput{{"a.json", a}, {"b.json", b}})
	if err != nil {
		t.Fatal(err)
	}
	m2, _, err := Merge([]MergeInput{{"ab.json", roundTrip(t, ab)}, {"c.json", c}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(m, roundTrip(t, m2)); diff != "" {
		t.Errorf("merging a merge differs (-direct +stepwise):\n%s", diff)
	}
}

// TestMergedQuantilesComeFromTheSamples checks that each run's quantiles in
// a merged file are those of the same run in one file: computed from its
// own samples, never averaged across shards.
func TestMergedQuantilesComeFromTheSamples(t *testing.T) {
	single := &File{Version: SchemaVersion, Suite: SuiteInfo{Name: "s"},
		Runs: []Run{measuredRun("x[c=1]", 1, 200, 40), measuredRun("x[c=2]", 2, 300, 80), measuredRun("y", 3, 250, 60), measuredRun("z", 4, 100, 20)}}
	a, b, c := threeShards()
	m, _, err := Merge([]MergeInput{{"a", roundTrip(t, a)}, {"b", roundTrip(t, b)}, {"c", roundTrip(t, c)}})
	if err != nil {
		t.Fatal(err)
	}
	m = roundTrip(t, m)
	for _, sr := range single.Runs {
		var mr *Run
		for i := range m.Runs {
			if m.Runs[i].Name == sr.Name {
				mr = &m.Runs[i]
			}
		}
		if mr == nil {
			t.Fatalf("%s missing from the merge", sr.Name)
		}
		for _, q := range []float64{50, 90, 95, 99, 99.9} {
			for _, m := range []struct {
				name      string
				one, many []float64
			}{{"ttft", sr.Samples.TTFT, mr.Samples.TTFT}, {"tpot", sr.Samples.TPOT, mr.Samples.TPOT}, {"e2el", sr.Samples.E2EL, mr.Samples.E2EL}} {
				want, got := Percentile(sortedCopy(m.one), q), Percentile(sortedCopy(m.many), q)
				if want != got {
					t.Errorf("%s %s p%g: merged %v, single file %v", sr.Name, m.name, q, got, want)
				}
			}
			if want, got := sr.Samples.ITL.Quantile(q/100), mr.Samples.ITL.Quantile(q/100); want != got {
				t.Errorf("%s itl p%g: merged %v, single file %v", sr.Name, q, got, want)
			}
		}
		if diff := cmp.Diff(sr.Summary, mr.Summary); diff != "" {
			t.Errorf("%s summary differs from the single file's (-single +merged):\n%s", sr.Name, diff)
		}
		// The merged summary is its samples' own: recomputed, it agrees.
		if got := Percentile(sortedCopy(mr.Samples.TTFT), 95); got != mr.Summary.TTFT.P95 {
			t.Errorf("%s ttft.p95 %v in the summary, %v from the samples", sr.Name, mr.Summary.TTFT.P95, got)
		}
	}
	// The shards' p95 differ, so an average would show: no run holds it.
	avg := 0.0
	for i := range m.Runs {
		avg += m.Runs[i].Summary.TTFT.P95 / float64(len(m.Runs))
	}
	for i := range m.Runs {
		if m.Runs[i].Summary.TTFT.P95 == avg {
			t.Errorf("%s ttft.p95 is the average of all runs' p95", m.Runs[i].Name)
		}
	}
}

func TestMergeRefuses(t *testing.T) {
	tests := []struct {
		name string
		edit func(a, b, c *File) []MergeInput
		want string
	}{
		{"nothing", func(a, b, c *File) []MergeInput { return nil }, "no results files"},
		{"different suites", func(a, b, c *File) []MergeInput {
			b.Suite.Name = "other"
			return []MergeInput{{"a.json", a}, {"b.json", b}}
		}, `b.json is of suite "other", a.json of suite "s"`},
		{"different plans", func(a, b, c *File) []MergeInput {
			b.Plan.Fingerprint = "sha256:ffffffffffff" + testFingerprint[19:]
			return []MergeInput{{"a.json", a}, {"b.json", b}}
		}, "b.json and a.json are of different plans (plan ffffffffffff vs 0123456789ab)"},
		{"different shard counts", func(a, b, c *File) []MergeInput {
			b.Plan.Shards = 4
			return []MergeInput{{"a.json", a}, {"b.json", b}}
		}, "b.json is split into 4 shards, a.json into 3"},
		{"overlapping shards", func(a, b, c *File) []MergeInput {
			return []MergeInput{{"a.json", a}, {"b.json", b}, {"a-again.json", roundTrip(t, a)}}
		}, "overlapping shards: a.json and a-again.json both hold shard 1/3"},
		{"overlapping merged file", func(a, b, c *File) []MergeInput {
			ab, _, err := Merge([]MergeInput{{"a.json", a}, {"b.json", b}})
			if err != nil {
				t.Fatal(err)
			}
			return []MergeInput{{"ab.json", ab}, {"b.json", b}}
		}, "overlapping shards: ab.json and b.json both hold shard 2/3"},
		{"duplicate run", func(a, b, c *File) []MergeInput {
			a.Runs = append(a.Runs, a.Runs[0])
			return []MergeInput{{"a.json", a}, {"b.json", b}}
		}, `duplicate run "x[c=1]" in a.json and a.json`},
		{"run planned twice", func(a, b, c *File) []MergeInput {
			b.Plan.Parts[0].Planned = append(b.Plan.Parts[0].Planned, "x[c=1]")
			return []MergeInput{{"a.json", a}, {"b.json", b}}
		}, `run "x[c=1]" is planned by a.json and by b.json`},
		{"unplanned run", func(a, b, c *File) []MergeInput {
			b.Runs = append(b.Runs, measuredRun("w", 9, 10, 10))
			return []MergeInput{{"a.json", a}, {"b.json", b}}
		}, `b.json holds run "w", which none of its shards planned`},
		{"not a shard", func(a, b, c *File) []MergeInput {
			b.Plan.Shards, b.Plan.Parts = 0, nil
			return []MergeInput{{"a.json", a}, {"b.json", b}}
		}, "b.json holds no shard of a plan"},
		{"no plan", func(a, b, c *File) []MergeInput {
			a.Plan = nil
			return []MergeInput{{"a.json", a}, {"b.json", b}}
		}, "a.json holds no shard of a plan"},
		{"shard out of range", func(a, b, c *File) []MergeInput {
			b.Plan.Parts[0].Shard = 7
			return []MergeInput{{"a.json", a}, {"b.json", b}}
		}, "b.json holds shard 7 of 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b, c := threeShards()
			m, _, err := Merge(tt.edit(a, b, c))
			if err == nil || !errors.Is(err, ErrMerge) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Merge = %v, %v; want ErrMerge containing %q", m != nil, err, tt.want)
			}
		})
	}
}

func TestMergeMissingShardOrRunIsPartial(t *testing.T) {
	a, b, c := threeShards()
	m, _, err := Merge([]MergeInput{{"a.json", a}, {"c.json", c}})
	if err != nil {
		t.Fatal(err)
	}
	if !m.Partial || fmt.Sprint(m.Plan.MissingShards()) != "[2]" {
		t.Errorf("without shard 2: partial %v, missing shards %v", m.Partial, m.Plan.MissingShards())
	}
	// A shard cut short: its file is partial and lacks a planned run.
	a.Partial, a.Runs = true, a.Runs[:1]
	m, _, err = Merge([]MergeInput{{"a.json", a}, {"b.json", b}, {"c.json", c}})
	if err != nil {
		t.Fatal(err)
	}
	if !m.Partial || fmt.Sprint(m.MissingRuns()) != "[x[c=2]]" || !m.Plan.Parts[0].Partial {
		t.Errorf("shard 1 cut short: partial %v, missing runs %v, part %+v", m.Partial, m.MissingRuns(), m.Plan.Parts[0])
	}
	// An empty shard is a valid shard with nothing to merge.
	empty := shardFile(2, 3, Environment{}, nil)
	empty.Runs = nil
	m, _, err = Merge([]MergeInput{{"a.json", a}, {"empty.json", roundTrip(t, empty)}})
	if err != nil || len(m.Runs) != 1 {
		t.Fatalf("merging an empty shard: %v, %d runs", err, len(m.Runs))
	}
}

func TestMergeWarnsWhenShardsRanOnDifferentHardware(t *testing.T) {
	a, b, _ := threeShards()
	b.Environment.GPU = "A100"
	m, warns, err := Merge([]MergeInput{{"a.json", a}, {"b.json", b}})
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 1 || !strings.Contains(warns[0].Error(), "shards differ in GPU: H100, A100") {
		t.Errorf("warnings %v", warns)
	}
	if m.Environment.GPU != "" || m.RunEnvironment("y").GPU != "A100" || m.RunEnvironment("x[c=1]").GPU != "H100" {
		t.Errorf("GPU: file %q, y %q, x %q", m.Environment.GPU, m.RunEnvironment("y").GPU, m.RunEnvironment("x[c=1]").GPU)
	}
}

func TestMergeKeepsReruns(t *testing.T) {
	a, b, _ := threeShards()
	ra, rb := roundTrip(t, a), roundTrip(t, b)
	ra.Plan.Rerun, rb.Plan.Rerun = true, true
	ra.Runs = ra.Runs[1:] // the rerun holds only the run that needed confirming
	_, _, err := Merge([]MergeInput{{"a.json", a}, {"b.rerun.json", rb}})
	if !errors.Is(err, ErrMerge) || !strings.Contains(err.Error(), "b.rerun.json holds a confirming rerun and a.json first measurements") {
		t.Errorf("mixing a rerun with first measurements: %v", err)
	}
	m, _, err := Merge([]MergeInput{{"a.rerun.json", ra}, {"b.rerun.json", rb}})
	if err != nil {
		t.Fatal(err)
	}
	if !m.Plan.Rerun || m.Partial || len(m.Runs) != 2 {
		t.Errorf("merged reruns: rerun %v, partial %v, %d runs", m.Plan.Rerun, m.Partial, len(m.Runs))
	}
}
