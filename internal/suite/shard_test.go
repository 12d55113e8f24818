package suite

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/llmgate/llmgate/internal/plan"
)

// shardSuite has five server groups of known weight in requests (warmup
// included): 100, 300 (two runs), 50, 200, 120.
const shardSuite = `
variable "big" { default = 200 }
simulator "sim" { profile = "tiny" }
defaults {
  target = simulator.sim
  load {
    concurrency = 2
    requests    = 10
  }
}
scenario "a" {
  load { requests = 100 }
}
scenario "mem" {
  sweep { util = [0.8, 0.9] }
  server_args = ["--util", sweep.util]
  load { requests = 150 }
}
scenario "c" {
  server_args = ["--c"]
  load {
    requests = 40
    warmup   = 10
  }
}
scenario "d" {
  server_args = ["--d"]
  load { requests = var.big }
}
scenario "e" {
  server_args = ["--e"]
  load { requests = 120 }
}
scenario "mem_again" {
  server_args = ["--util", 0.8]
  load { requests = 150 }
}
`

func shardNames(p *plan.Plan) []string {
	var out []string
	for _, r := range p.Runs() {
		out = append(out, r.Name)
	}
	return out
}

func TestSplitKeepsServerGroupsWholeAndCoversThePlanOnce(t *testing.T) {
	s := mustLoad(t, shardSuite, Options{})
	p := s.Plan()
	for n := 1; n <= 8; n++ {
		shards := p.Split(n)
		if len(shards) != n {
			t.Fatalf("Split(%d) made %d shards", n, len(shards))
		}
		seenRun := map[string]int{}
		seenGroup := map[*plan.Group]int{}
		for si, sh := range shards {
			for _, g := range sh.Groups {
				if prev, ok := seenGroup[g]; ok {
					t.Errorf("n=%d: group %s %v in shards %d and %d", n, g.Target.Ref(), g.ServerArgs, prev+1, si+1)
				}
				seenGroup[g] = si
			}
			for _, r := range sh.Runs() {
				seenRun[r.Name]++
			}
		}
		for _, r := range p.Runs() {
			if seenRun[r.Name] != 1 {
				t.Errorf("n=%d: run %s in %d shards, want 1", n, r.Name, seenRun[r.Name])
			}
		}
		if len(seenRun) != len(p.Runs()) {
			t.Errorf("n=%d: shards hold %d runs, the plan %d", n, len(seenRun), len(p.Runs()))
		}
	}
}

func TestSplitBalancesByPlannedRequests(t *testing.T) {
	s := mustLoad(t, shardSuite, Options{})
	p := s.Plan()
	var ws []float64
	for _, w := range p.Weights() {
		if w.Unit != plan.WeightRequests {
			t.Fatalf("unit %q, want requests (no run has a duration)", w.Unit)
		}
		ws = append(ws, w.Amount)
	}
	// a; --util 0.8 (mem[0.8] and mem_again); --util 0.9; c (40+10); d; e.
	if diff := cmp.Diff([]float64{100, 300, 150, 50, 200, 120}, ws); diff != "" {
		t.Fatalf("group weights (-want +got):\n%s", diff)
	}
	// Longest first, each to the lightest shard, worked by hand:
	//   300→s1 (300,0,0); 200→s2 (300,200,0); 150→s3 (300,200,150);
	//   120→s3 (300,200,270); 100→s2 (300,300,270); 50→s3 (300,300,320).
	want := [][]string{
		{"mem[util=0.8]", "mem_again"},
		{"a", "d"},
		{"mem[util=0.9]", "c", "e"},
	}
	var got [][]string
	for _, sh := range p.Split(3) {
		got = append(got, shardNames(sh))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("3 shards (-want +got):\n%s", diff)
	}
	// Each shard is within the heaviest group of the ideal share.
	total, heaviest := 0.0, 0.0
	for _, w := range ws {
		total += w
		heaviest = max(heaviest, w)
	}
	for n := 1; n <= 6; n++ {
		for i, sh := range p.Split(n) {
			sum := 0.0
			for _, w := range sh.Weights() {
				sum += w.Amount
			}
			if sum > total/float64(n)+heaviest {
				t.Errorf("n=%d shard %d weighs %v, more than the share %v plus the heaviest group %v", n, i+1, sum, total/float64(n), heaviest)
			}
		}
	}
}

func TestSplitIsDeterministicAndFollowsVariables(t *testing.T) {
	a := mustLoad(t, shardSuite, Options{})
	b := mustLoad(t, shardSuite, Options{})
	for n := 1; n <= 6; n++ {
		for i := 1; i <= n; i++ {
			sa, sb := a.Plan().Shard(plan.Shard{Index: i, Count: n}), b.Plan().Shard(plan.Shard{Index: i, Count: n})
			if diff := cmp.Diff(shardNames(sa), shardNames(sb)); diff != "" {
				t.Errorf("shard %d/%d differs between two loads:\n%s", i, n, diff)
			}
		}
	}
	if a.Plan().Fingerprint() != b.Plan().Fingerprint() {
		t.Error("two loads of one suite have different fingerprints")
	}
	// A variable that makes d light moves it: the split follows the
	// variables, and so does the fingerprint.
	c := mustLoad(t, shardSuite, Options{Vars: map[string]string{"big": "5"}})
	if got := shardNames(c.Plan().Shard(plan.Shard{Index: 2, Count: 3})); cmp.Equal(got, shardNames(a.Plan().Shard(plan.Shard{Index: 2, Count: 3}))) {
		t.Errorf("big=5 left shard 2/3 as it was: %v", got)
	}
	if c.Plan().Fingerprint() == a.Plan().Fingerprint() {
		t.Error("a variable that changes a run's load left the fingerprint unchanged")
	}
	if fp := a.Plan().Fingerprint(); !strings.HasPrefix(fp, "sha256:") || len(fp) != len("sha256:")+64 {
		t.Errorf("fingerprint %q", fp)
	}
}

func TestSplitMoreShardsThanGroupsLeavesEmptyShards(t *testing.T) {
	s := mustLoad(t, shardSuite, Options{})
	shards := s.Plan().Split(8)
	empty := 0
	for _, sh := range shards {
		if len(sh.Groups) == 0 {
			empty++
		}
	}
	if empty != 8-len(s.Plan().Groups) {
		t.Errorf("%d empty shards of 8 for %d groups", empty, len(s.Plan().Groups))
	}
	// Empty shards are the last ones: the greedy fills the lowest first.
	for i := len(s.Plan().Groups); i < 8; i++ {
		if len(shards[i].Groups) != 0 {
			t.Errorf("shard %d of 8 is not empty", i+1)
		}
	}
}

func TestWeightsInSecondsWhenEveryDurationIsKnown(t *testing.T) {
	src := `
simulator "sim" { profile = "tiny" }
defaults { target = simulator.sim }
scenario "timed" {
  load {
    concurrency = 2
    duration    = "30s"
  }
}
scenario "open" {
  server_args = ["--x"]
  load {
    rate     = 4
    requests = 100
    warmup   = 20
  }
}
scenario "capped" {
  server_args = ["--y"]
  load {
    rate     = 10
    requests = 1000
    duration = "20s"
  }
}
`
	s := mustLoad(t, src, Options{})
	var got []string
	for _, w := range s.Plan().Weights() {
		got = append(got, fmt.Sprintf("%g %s", w.Amount, w.Unit))
	}
	if diff := cmp.Diff([]string{"30 seconds", "30 seconds", "20 seconds"}, got); diff != "" {
		t.Errorf("weights (-want +got):\n%s", diff)
	}
}

func TestFingerprintLeavesSecretsOut(t *testing.T) {
	src := `
server "vllm" {
  image   = "vllm/vllm-openai:v0.11.0"
  model   = "m"
  env     = { HF_TOKEN = env("HF_TOKEN") }
  api_key = env("API_KEY")
}
defaults {
  target = server.vllm
  load {
    concurrency = 2
    requests    = 10
  }
}
scenario "a" {}
`
	fp := func(token, key string) string {
		env := map[string]string{"HF_TOKEN": token, "API_KEY": key}
		return mustLoad(t, src, Options{Getenv: func(k string) string { return env[k] }}).Plan().Fingerprint()
	}
	if fp("hf_one", "k1") != fp("hf_two", "k2") {
		t.Error("the fingerprint depends on the token or the API key")
	}
}

func TestFingerprintIgnoresWhereTheDatasetLives(t *testing.T) {
	src := `
variable "ds" {}
simulator "sim" {}
defaults { target = simulator.sim }
scenario "a" {
  workload {
    kind    = "dataset"
    dataset = var.ds
  }
  load {
    concurrency = 2
    requests    = 10
  }
}
`
	var fps []string
	for range 2 {
		path := filepath.Join(t.TempDir(), "sharegpt.json")
		if err := os.WriteFile(path, []byte(`[]`), 0o644); err != nil {
			t.Fatal(err)
		}
		fps = append(fps, mustLoad(t, src, Options{Vars: map[string]string{"ds": path}}).Plan().Fingerprint())
	}
	if fps[0] != fps[1] {
		t.Error("the same dataset in two checkouts gives two fingerprints")
	}
}
