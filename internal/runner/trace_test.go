package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/internal/suite"
)

// blockTrace writes a Mooncake trace of n rows, 20 ms apart, of four
// 64-token blocks: the first three shared by every row when shared, else
// each row's own.
func blockTrace(t *testing.T, path string, n int, shared bool) {
	t.Helper()
	var sb strings.Builder
	for i := range n {
		ids := []int{1, 2, 3, 1000 + i}
		if !shared {
			ids = []int{4 * i, 4*i + 1, 4*i + 2, 4*i + 3}
		}
		fmt.Fprintf(&sb, `{"timestamp": %d, "input_length": 256, "output_length": 4, "hash_ids": %s}`+"\n", 20*i, strings.ReplaceAll(fmt.Sprint(ids), " ", ", "))
	}
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestTraceReplayPrefixCache replays on the simulator a trace whose rows
// share three of their four blocks and one whose rows share none: the
// simulator's prefix cache (vllm:prefix_cache_hits / queries) sees the
// trace's reuse, and nothing where there is none. Each request answers
// with exactly its row's lengths and records its row.
func TestTraceReplayPrefixCache(t *testing.T) {
	dir := t.TempDir()
	const n = 16
	blockTrace(t, filepath.Join(dir, "shared.jsonl"), n, true)
	blockTrace(t, filepath.Join(dir, "none.jsonl"), n, false)
	src := `simulator "sim" {
  profile = "tiny"
}
scenario "shared" {
  target = simulator.sim
  workload {
    kind       = "trace"
    file       = "shared.jsonl"
    format     = "mooncake"
    block_size = 64
  }
  load { requests = 16 }
}
scenario "none" {
  target = simulator.sim
  workload {
    kind       = "trace"
    file       = "none.jsonl"
    format     = "mooncake"
    block_size = 64
  }
  load { requests = 16 }
}
`
	path := filepath.Join(dir, "suite.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s, diags := suite.Load(path, suite.Options{Getenv: func(string) string { return "" }})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	f, err := Run(context.Background(), s.Runnable(), Options{OutputPath: filepath.Join(dir, "results.json")})
	if err != nil {
		t.Fatal(err)
	}
	rates := map[string]float64{}
	for _, r := range f.Runs {
		if r.Summary.Server == nil || r.Requests == nil {
			t.Fatalf("%s: no server metrics or request log", r.Name)
		}
		sm := r.Summary.Server
		if sm.PrefixCacheHitRate == nil || sm.PrefixCacheHits == nil || sm.PrefixCacheQueries == nil {
			t.Fatalf("%s: the simulator's prefix-cache counters were not read", r.Name)
		}
		rates[r.Name] = *sm.PrefixCacheHitRate
		t.Logf("%s: prefix-cache hit rate %.4f (%g of %g tokens)", r.Name, *sm.PrefixCacheHitRate, *sm.PrefixCacheHits, *sm.PrefixCacheQueries)
		l := r.Requests
		if l.Len() != n || len(l.TraceRow) != n {
			t.Fatalf("%s: %d requests, %d trace rows, want %d", r.Name, l.Len(), len(l.TraceRow), n)
		}
		for i := range n {
			if l.TraceRow[i] != i+1 || l.InputTokens[i] != 256 || l.OutputTokens[i] != 4 {
				t.Errorf("%s: request %d: row %d, %d in / %d out; want row %d, 256 / 4", r.Name, i, l.TraceRow[i], l.InputTokens[i], l.OutputTokens[i], i+1)
			}
		}
		if r.Load == nil || r.Load.Workload != "trace" || r.Load.Trace != r.Name+".jsonl" || !strings.HasPrefix(r.Load.TraceDigest, "sha256:") || r.Load.BlockSize != 64 {
			t.Errorf("%s: load recorded as %+v", r.Name, r.Load)
		}
	}
	// 15 of 16 rows find their first 192 of 256 tokens cached: 0.70 at best
	if rates["shared"] < 0.5 || rates["shared"] > 0.71 {
		t.Errorf("shared blocks: hit rate %.3f, want most of 15/16 × 3/4 = 0.70", rates["shared"])
	}
	if rates["none"] > 0.01 {
		t.Errorf("no shared blocks: hit rate %.3f, want none", rates["none"])
	}
}

// TestTraceReplayAzure replays the first 120 rows of the shipped Azure
// slice on the simulator, 20 times as fast: every prompt and every answer
// has its row's length, in the trace's order.
func TestTraceReplayAzure(t *testing.T) {
	if testing.Short() {
		t.Skip("replays 2.3 s of a trace on the simulator")
	}
	slice, err := filepath.Abs(filepath.Join("..", "..", "testdata", "traces", "azure-llm-2023-conv-240.csv"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	raw, err := os.ReadFile(slice)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "azure.csv"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	src := `simulator "sim" {
  profile = "llama-3.1-8b-h100"
}
scenario "azure" {
  target = simulator.sim
  workload {
    kind       = "trace"
    file       = "azure.csv"
    format     = "azure"
    time_scale = 20
  }
  load { requests = 120 }
}
`
	path := filepath.Join(dir, "suite.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s, diags := suite.Load(path, suite.Options{Getenv: func(string) string { return "" }})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	rows := s.Plan().Runs()[0].Trace.Rows
	f, err := Run(context.Background(), s.Runnable(), Options{OutputPath: filepath.Join(dir, "results.json")})
	if err != nil {
		t.Fatal(err)
	}
	l := f.Runs[0].Requests
	if l == nil || l.Len() != 120 {
		t.Fatalf("request log %v, want 120 requests", l)
	}
	prompts, answers := 0, 0
	for i := range 120 {
		if l.TraceRow[i] != rows[i].Line {
			t.Errorf("request %d replayed line %d, want %d", i, l.TraceRow[i], rows[i].Line)
		}
		if l.InputTokens[i] == rows[i].Input {
			prompts++
		}
		if l.OutputTokens[i] == rows[i].Output {
			answers++
		}
	}
	if prompts != 120 || answers != 120 || len(l.Failures) != 0 {
		t.Errorf("%d prompts and %d answers of 120 had their row's length, %d failed", prompts, answers, len(l.Failures))
	}
	// each request's planned send is its row's offset, 20 times as fast
	if len(l.PlannedUS) != 120 {
		t.Fatalf("%d planned sends, want 120", len(l.PlannedUS))
	}
	for i := range 120 {
		want := (rows[i].At - rows[0].At).Microseconds() / 20
		if got := l.PlannedUS[i] - l.PlannedUS[0]; got < want-1 || got > want+1 {
			t.Errorf("request %d planned %d µs after the first, want the trace's %d", i, got, want)
			break
		}
	}
}

// TestTraceContextProblems: a trace none of whose replayed rows fits the
// simulator's context is refused before it runs; one some of whose rows
// fit runs, the others failing one by one.
func TestTraceContextProblems(t *testing.T) {
	dir := t.TempDir()
	rows := `{"timestamp": 0, "input_length": 2000, "output_length": 4}
{"timestamp": 10, "input_length": 1020, "output_length": 8}
{"timestamp": 20, "input_length": 100, "output_length": 4}
`
	if err := os.WriteFile(filepath.Join(dir, "t.jsonl"), []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		requests int
		want     string
	}{
		{2, "none of the 2 trace rows it replays fits the model's context of 1024 tokens"},
		{3, ""},
	} {
		src := fmt.Sprintf(`simulator "sim" {
  profile = "tiny"
}
scenario "replay" {
  workload {
    kind   = "trace"
    file   = "t.jsonl"
    format = "mooncake"
  }
  load { requests = %d }
}
`, c.requests)
		path := filepath.Join(dir, "suite.hcl")
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		s, diags := suite.Load(path, suite.Options{Getenv: func(string) string { return "" }})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		got := ""
		for _, p := range ContextProblems(s.Plan()) {
			got += p.Message
		}
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("requests = %d: problems %q, want %q", c.requests, got, c.want)
		}
	}
}
