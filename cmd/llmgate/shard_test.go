package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/llmgate/llmgate/results"
)

const shardSuite = "testdata/shard/shard.hcl"

// shardFiles runs the two shards of shardSuite into a temporary directory:
// shard 1/2 holds big, shard 2/2 small_a and small_b.
func shardFiles(t *testing.T) (s1, s2 string) {
	t.Helper()
	gateNotActions(t)
	dir := t.TempDir()
	s1, s2 = filepath.Join(dir, "s1.json"), filepath.Join(dir, "s2.json")
	for i, path := range []string{s1, s2} {
		code, stdout, stderr := runCLI(t, "run", shardSuite, "--shard", []string{"1/2", "2/2"}[i], "-o", path)
		if code != exitPass || !strings.Contains(stdout, []string{"shard 1/2: 1 of 3 server group(s), 1 of 3 run(s)", "shard 2/2: 2 of 3 server group(s)"}[i]) {
			t.Fatalf("run shard %d/2: exit %d\n%s\n%s", i+1, code, stdout, stderr)
		}
	}
	return s1, s2
}

func readRunsJSON(t *testing.T, paths ...string) []string {
	t.Helper()
	var out []string
	for _, p := range paths {
		f, err := results.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for i := range f.Runs {
			b, err := json.Marshal(&f.Runs[i])
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, string(b))
		}
	}
	return out
}

func TestShardRunRecordsItsShard(t *testing.T) {
	s1, s2 := shardFiles(t)
	for _, tt := range []struct {
		path    string
		shard   int
		planned []string
	}{{s1, 1, []string{"big"}}, {s2, 2, []string{"small_a", "small_b"}}} {
		f, err := results.ReadFile(tt.path)
		if err != nil {
			t.Fatal(err)
		}
		if f.Partial || f.Plan == nil || f.Plan.Shards != 2 || f.Plan.Runs != 3 || len(f.Plan.Parts) != 1 {
			t.Fatalf("%s: partial %v, plan %+v", tt.path, f.Partial, f.Plan)
		}
		if p := f.Plan.Parts[0]; p.Shard != tt.shard || !cmp.Equal(p.Planned, tt.planned) {
			t.Errorf("%s: part %+v, want shard %d planning %v", tt.path, p, tt.shard, tt.planned)
		}
		var names []string
		for _, r := range f.Runs {
			names = append(names, r.Name)
		}
		if !cmp.Equal(names, tt.planned) {
			t.Errorf("%s ran %v, want %v", tt.path, names, tt.planned)
		}
	}
}

func TestShardMergeAndGateGivenResults(t *testing.T) {
	s1, s2 := shardFiles(t)
	dir := t.TempDir()
	all := filepath.Join(dir, "all.json")
	code, stdout, stderr := runCLI(t, "merge", s2, s1, "-o", all)
	if code != exitPass || !strings.Contains(stdout, "merged 2 file(s), shard(s) 1, 2 of 2, 3 run(s) of 3") {
		t.Fatalf("merge: exit %d\n%s\n%s", code, stdout, stderr)
	}
	// Every run travels whole, byte for byte.
	if diff := cmp.Diff(readRunsJSON(t, s1, s2), readRunsJSON(t, all)); diff != "" {
		t.Errorf("merged runs differ from the shards' (-shards +merged):\n%s", diff)
	}

	// The merged file against no baseline: the asserts pass.
	code, stdout, stderr = runCLI(t, "gate", shardSuite, "--results", all, "--baseline", "none")
	if code != exitPass || !strings.Contains(stdout, "nothing runs") || !strings.Contains(stdout, "gate PASS") {
		t.Errorf("gate --results merged: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "results measured elsewhere, 2 of 2 shard(s): shard 1/2 on ") {
		t.Errorf("the gate does not say which shards it judges and where they ran:\n%s", stderr)
	}
	// The shard files themselves, merged by the gate, against the merged
	// file as baseline: the same numbers, nothing changed; -o writes the
	// merge.
	judged := filepath.Join(dir, "judged.json")
	code, stdout, stderr = runCLI(t, "gate", shardSuite, "--results", s1, "--results", s2, "--baseline", all, "-o", judged)
	if code != exitPass || !strings.Contains(stdout, "no regression") {
		t.Errorf("gate --results shards vs the merge: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if diff := cmp.Diff(readRunsJSON(t, all), readRunsJSON(t, judged)); diff != "" {
		t.Errorf("the judged file's runs differ from the merge's:\n%s", diff)
	}

	// A missing shard: merge says partial, the gate names the runs and
	// cannot pass.
	part := filepath.Join(dir, "part.json")
	code, _, stderr = runCLI(t, "merge", s1, "-o", part)
	if code != exitPass || !strings.Contains(stderr, "partial: no results for shard(s) 2/2") {
		t.Errorf("merge of one shard: exit %d\n%s", code, stderr)
	}
	if f, err := results.ReadFile(part); err != nil || !f.Partial {
		t.Errorf("merge of one shard: partial %v, %v", f != nil && f.Partial, err)
	}
	code, stdout, stderr = runCLI(t, "gate", shardSuite, "--results", part, "--baseline", all)
	if code != exitInfra || !strings.Contains(stderr, "runs missing from the results files: shard 2/2 (no results file): small_a, small_b") {
		t.Errorf("gate on a partial merge: exit %d, want 3\n%s\n%s", code, stdout, stderr)
	}
}

func TestShardEmptyWritesAnEmptyFile(t *testing.T) {
	gateNotActions(t)
	out := filepath.Join(t.TempDir(), "empty.json")
	code, stdout, stderr := runCLI(t, "run", shardSuite, "--shard", "4/4", "-o", out)
	if code != exitPass || !strings.Contains(stdout, "shard 4/4 has nothing to run") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	f, err := results.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if f.Partial || len(f.Runs) != 0 || f.Plan == nil || f.Plan.Shards != 4 || len(f.Plan.Parts) != 1 || len(f.Plan.Parts[0].Planned) != 0 {
		t.Errorf("empty shard file: partial %v, %d runs, plan %+v", f.Partial, len(f.Runs), f.Plan)
	}
}

func TestShardValidatePlan(t *testing.T) {
	code, stdout, stderr := runCLI(t, "validate", "--plan", "--shard", "2/2", shardSuite)
	if code != exitPass {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"shard 2/2: 2 of 3 server group(s), 2 of 3 run(s), 16 planned requests", "  small_a\n", "  small_b\n"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "  big\n") {
		t.Errorf("shard 2/2 lists big, which is shard 1/2's:\n%s", stdout)
	}
}

func TestShardRefusals(t *testing.T) {
	s1, s2 := shardFiles(t)
	dir := t.TempDir()
	s1copy := filepath.Join(dir, "s1-copy.json")
	b, err := os.ReadFile(s1)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s1copy, b, 0o644); err != nil {
		t.Fatal(err)
	}
	// A shard of another plan: requests=4 changes every run's load.
	other := filepath.Join(dir, "other.json")
	if code, stdout, stderr := runCLI(t, "run", shardSuite, "--shard", "2/2", "--var", "requests=4", "-o", other); code != exitPass {
		t.Fatalf("run with requests=4: exit %d\n%s\n%s", code, stdout, stderr)
	}
	// A whole-plan file of another suite.
	tiny := filepath.Join(dir, "tiny.json")
	if code, stdout, stderr := runCLI(t, "run", "testdata/run/tiny.hcl", "--only", "chat", "-o", tiny); code != exitPass {
		t.Fatalf("run tiny: exit %d\n%s\n%s", code, stdout, stderr)
	}
	out := filepath.Join(dir, "out.json")
	for _, tt := range []struct {
		name   string
		args   []string
		stderr string
	}{
		{"shard zero", []string{"run", shardSuite, "--shard", "0/2", "-o", out}, "i must be between 1 and n (2)"},
		{"shard past n", []string{"gate", shardSuite, "--shard", "3/2", "-o", out}, "i must be between 1 and n (2)"},
		{"shard not i/n", []string{"validate", "--shard", "2", shardSuite}, "want i/n"},
		{"shard zero shards", []string{"run", shardSuite, "--shard", "1/0", "-o", out}, "n must be between 1 and"},
		{"shard and results", []string{"gate", shardSuite, "--shard", "1/2", "--results", s1}, "give one of them"},
		{"target and results", []string{"gate", shardSuite, "--target", "http://127.0.0.1:1", "--results", s1}, "give one of them"},
		{"merge without -o", []string{"merge", s1, s2}, "-o FILE"},
		{"merge the same file twice", []string{"merge", s1, s1, "-o", out}, "is given twice"},
		{"merge overlapping shards", []string{"merge", s1, s1copy, "-o", out}, "overlapping shards"},
		{"merge different plans", []string{"merge", s1, other, "-o", out}, "are of different plans"},
		{"merge a whole-plan file", []string{"merge", s1, tiny, "-o", out}, "holds no shard of a plan"},
		{"merge unreadable", []string{"merge", s1, filepath.Join(dir, "nope.json"), "-o", out}, "nope.json"},
		{"gate results of another plan", []string{"gate", shardSuite, "--results", s1, "--var", "requests=4"}, "another plan"},
		{"gate results of another suite", []string{"gate", shardSuite, "--results", tiny}, `results of suite "cli-tiny", not "cli-shard"`},
		{"gate overlapping shards", []string{"gate", shardSuite, "--results", s1, "--results", s1copy}, "overlapping shards"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tt.args...)
			if code != exitUsage || !strings.Contains(stderr, tt.stderr) {
				t.Errorf("exit %d, want 2 with %q on stderr\nstdout:\n%s\nstderr:\n%s", code, tt.stderr, stdout, stderr)
			}
		})
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a refused command wrote %s", out)
	}
}

func TestShardGateJudgesItsShardOnly(t *testing.T) {
	s1, s2 := shardFiles(t)
	dir := t.TempDir()
	all := filepath.Join(dir, "all.json")
	if code, stdout, stderr := runCLI(t, "merge", s1, s2, "-o", all); code != exitPass {
		t.Fatalf("merge: exit %d\n%s\n%s", code, stdout, stderr)
	}
	out := filepath.Join(dir, "shard2.json")
	code, stdout, stderr := runCLI(t, "gate", shardSuite, "--shard", "2/2", "--baseline", all, "-o", out)
	if code != exitPass {
		t.Fatalf("gate --shard 2/2: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "no pull-request comment from shard 2/2") {
		t.Errorf("a shard's gate does not say it leaves the comment to the merged gate:\n%s", stderr)
	}
	// The baseline's run of shard 1 is not this shard's: no row says it is missing.
	if strings.Contains(stdout, "missing") || strings.Contains(stdout, "\nbig\n") {
		t.Errorf("the shard's gate reports shard 1's run:\n%s", stdout)
	}
	f, err := results.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Runs) != 2 || f.Plan == nil || f.Plan.Parts[0].Shard != 2 {
		t.Errorf("gate --shard 2/2 wrote %d runs, plan %+v", len(f.Runs), f.Plan)
	}
}

// TestShardGateRerunReachesTheFinalGate: a shard job that gates its own
// shard confirms an unclear change by a rerun on its runner and writes it
// beside its results; the gate on results measured elsewhere confirms with that file,
// and without it calls the change inconclusive.
func TestShardGateRerunReachesTheFinalGate(t *testing.T) {
	s1, s2 := shardFiles(t)
	dir := t.TempDir()
	all := filepath.Join(dir, "all.json")
	if code, stdout, stderr := runCLI(t, "merge", s1, s2, "-o", all); code != exitPass {
		t.Fatalf("merge: exit %d\n%s\n%s", code, stdout, stderr)
	}
	// A baseline in which big completed 18 requests where it completes 16:
	// 11% worse under shard.hcl's 10% band, which one run cannot call.
	base, err := results.ReadFile(all)
	if err != nil {
		t.Fatal(err)
	}
	for i := range base.Runs {
		if base.Runs[i].Name == "big" {
			base.Runs[i].Summary.Requests.Completed = 18
		}
	}
	basePath := filepath.Join(dir, "base.json")
	if err := results.WriteFile(basePath, base); err != nil {
		t.Fatal(err)
	}

	g1 := filepath.Join(dir, "g1.json")
	code, stdout, stderr := runCLI(t, "gate", shardSuite, "--shard", "1/2", "--baseline", basePath, "-o", g1)
	if code != exitGate {
		t.Fatalf("the shard's gate: exit %d, want 1 (confirmed by its rerun)\n%s\n%s", code, stdout, stderr)
	}
	rerun, err := results.ReadFile(filepath.Join(dir, "g1.rerun.json"))
	if err != nil {
		t.Fatal(err)
	}
	if rerun.Plan == nil || !rerun.Plan.Rerun || rerun.Plan.Shards != 2 || len(rerun.Runs) != 1 {
		t.Fatalf("the rerun file: plan %+v, %d runs", rerun.Plan, len(rerun.Runs))
	}

	code, stdout, stderr = runCLI(t, "gate", shardSuite, "--results", g1, "--results", filepath.Join(dir, "g1.rerun.json"), "--results", s2, "--baseline", basePath)
	if code != exitGate || !strings.Contains(stdout+stderr, "❌ 1 regression in") {
		t.Errorf("the final gate with the rerun: exit %d, want 1\n%s\n%s", code, stdout, stderr)
	}
	code, stdout, stderr = runCLI(t, "gate", shardSuite, "--results", g1, "--results", s2, "--baseline", basePath)
	if code != exitPass || !strings.Contains(stderr, "big changed by less than a single run can call") || !strings.Contains(stdout, "1 inconclusive") {
		t.Errorf("the final gate without the rerun: exit %d, want 0 with an inconclusive change\n%s\n%s", code, stdout, stderr)
	}
}
