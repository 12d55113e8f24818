package runner

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
)

// Each point of a sweep on one simulator starts with a reset prefix cache
// and unique prompts, so none is measured on cache hits (the target is
// 1 %; before prompts were keyed by run name it was 0, then 0.97).
func TestSweepPointsSeeNoPrefixHits(t *testing.T) {
	s := loadSuite(t, "sweep512.hcl", nil)
	f, err := Run(context.Background(), s, Options{OutputPath: filepath.Join(t.TempDir(), "results.json")})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if len(f.Runs) != 3 {
		t.Fatalf("%d runs, want 3", len(f.Runs))
	}
	for i, r := range f.Runs {
		if r.PrefixCache == nil || !r.PrefixCache.Done || r.PrefixCache.Unverified != "" {
			t.Errorf("%s: prefix cache not reset: %+v", r.Name, r.PrefixCache)
		}
		if r.Summary.Server == nil {
			t.Fatalf("%s: no server metrics", r.Name)
		}
		hr := r.Summary.Server.PrefixCacheHitRate
		if hr == nil {
			t.Fatalf("%s: the simulator's prefix-cache counters were not read", r.Name)
		}
		t.Logf("%s: prefix-cache hit rate %.4f", r.Name, *hr)
		if *hr > 0.01 {
			t.Errorf("%s: prefix-cache hit rate %.3f, want at most 0.01", r.Name, *hr)
		}
		if r.Load == nil || r.Load.Concurrency != []int{1, 4, 16}[i] || r.Load.InputTokens != 512 || r.Load.Workload != "random" || r.Load.Requests != 32 {
			t.Errorf("%s: load config %+v, want concurrency %d, 512 input tokens, 32 requests", r.Name, r.Load, []int{1, 4, 16}[i])
		}
		if r.Requests == nil || r.Requests.Len() != 32 {
			t.Errorf("%s: request log holds %v requests, want 32", r.Name, r.Requests)
		}
		// (a loaded machine may make the load generator's own checks fail:
		// only the prefix-cache check matters here)
		for _, reason := range r.InvalidReasons {
			if strings.Contains(reason, "prefix-cache") {
				t.Errorf("%s: flagged: %s", r.Name, reason)
			}
		}
	}
}

func TestPrefixHitProblem(t *testing.T) {
	hits := &results.ServerMetrics{PrefixCacheHitRate: new(0.5)}
	if p, _ := prefixHitProblem(runspec.Workload{Kind: runspec.WorkloadRandom}, hits, 0); !strings.Contains(p, "prefix-cache hit rate 50.0% on a random workload") {
		t.Errorf("random workload with 50%% hits: problem %q", p)
	}
	if p, _ := prefixHitProblem(runspec.Workload{Kind: runspec.WorkloadRandom}, &results.ServerMetrics{PrefixCacheHitRate: new(0.02)}, 0); p != "" {
		t.Errorf("2%% hits flagged: %q", p)
	}
	for _, kind := range []runspec.WorkloadKind{runspec.WorkloadPrefix, runspec.WorkloadConversation, runspec.WorkloadStructured} {
		if p, _ := prefixHitProblem(runspec.Workload{Kind: kind}, hits, 0); p != "" {
			t.Errorf("%s workload, which shares a prefix on purpose, flagged: %q", kind, p)
		}
	}
	// a server without prefix-cache counters: the check is not made, and
	// says so, rather than passed
	for name, m := range map[string]*results.ServerMetrics{"no /metrics": nil, "no prefix-cache counters": {KVCacheUsageMax: 0.5}} {
		if p, u := prefixHitProblem(runspec.Workload{Kind: runspec.WorkloadRandom}, m, 0); p != "" || !strings.Contains(u, "not checked: the server reports no prefix-cache counters") {
			t.Errorf("%s: problem %q, unchecked %q; want unchecked", name, p, u)
		}
	}
	if _, u := prefixHitProblem(runspec.Workload{Kind: runspec.WorkloadRandom}, &results.ServerMetrics{PrefixCacheHitRate: new(0.0)}, 0); u != "" {
		t.Errorf("a measured 0 hit rate left unchecked: %q", u)
	}
	// preempted requests recomputed hit their own blocks: not checked
	p, u := prefixHitProblem(runspec.Workload{Kind: runspec.WorkloadRandom}, &results.ServerMetrics{PrefixCacheHitRate: new(0.11), Preemptions: 40}, 0)
	if p != "" || !strings.Contains(u, "not checked: 40 preemptions") {
		t.Errorf("with preemptions: problem %q, unchecked %q", p, u)
	}
}

// TestPrefixHitProblemTemplate checks the chat template's shared prefix
// is left out of the check: 16 template tokens cached per request of 256
// tokens are 6.25 % of the queries, all of them the template's.
func TestPrefixHitProblemTemplate(t *testing.T) {
	chat := runspec.Workload{Kind: runspec.WorkloadRandom, Chat: true}
	n := results.Requests{Completed: 100}
	m := &results.ServerMetrics{PrefixCacheQueries: new(100 * 256.0), PrefixCacheHits: new(99 * 16.0), PrefixCacheHitRate: new(99 * 16 / (100 * 256.0))}
	if p, _ := prefixHitProblem(chat, m, 0); !strings.Contains(p, "hit rate 6.2%") {
		t.Errorf("without the template's prefix: %q, want the run flagged at 6.2%%", p)
	}
	tmpl := templateHits(chat, 27, n)
	if tmpl != 27*99 {
		t.Errorf("template hits %v, want 27 × 99", tmpl)
	}
	if p, _ := prefixHitProblem(chat, m, tmpl); p != "" {
		t.Errorf("the template's hits flagged: %q", p)
	}
	// hits beyond the template's still count
	m2 := &results.ServerMetrics{PrefixCacheQueries: new(100 * 256.0), PrefixCacheHits: new(99*16 + 3000.0), PrefixCacheHitRate: new(0.2)}
	if p, _ := prefixHitProblem(chat, m2, tmpl); !strings.Contains(p, "beyond the chat template's shared prefix") {
		t.Errorf("3000 more hits: %q", p)
	}
	// token-id completions have no template
	if got := templateHits(runspec.Workload{Kind: runspec.WorkloadRandom}, 27, n); got != 0 {
		t.Errorf("completions template hits %v", got)
	}
}

func TestLengthProblems(t *testing.T) {
	p := lengthProblems(&results.Lengths{InputRequested: 256, InputActual: 478, OutputRequested: 64, OutputActual: 64}, 0.05)
	if len(p) != 1 || !strings.Contains(p[0], "mean prompt length 478.0 tokens is +86.7% off the requested 256") {
		t.Errorf("problems %q, want the prompt flagged", p)
	}
	// within 5 %, and no answer length asked for (structured output)
	if p := lengthProblems(&results.Lengths{InputRequested: 256, InputActual: 260, OutputActual: 30}, 0.05); len(p) != 0 {
		t.Errorf("problems %q, want none", p)
	}
	if p := lengthProblems(nil, 0.05); len(p) != 0 {
		t.Errorf("problems %q without lengths", p)
	}
	// answers cut short: the server ignores ignore_eos; say what to do
	short := &results.Lengths{OutputRequested: 128, OutputActual: 51}
	if p := lengthProblems(short, 0.05); len(p) != 1 || !strings.Contains(p[0], "-60.2% off the requested 128") ||
		!strings.Contains(p[0], "ignore_eos = false") || !strings.Contains(p[0], "self_check { length }") {
		t.Errorf("short answers: problems %q", p)
	}
	if p := lengthProblems(short, 0.7); len(p) != 0 {
		t.Errorf("short answers within a 70%% length tolerance: problems %q", p)
	}
	// prompts truncated to a 4096-token context
	cut := &results.Lengths{InputRequested: 6000, InputActual: 4096, InputActualMax: 4096, InputRequestedMax: 6000}
	if p := lengthProblems(cut, 0.05); len(p) != 1 || !strings.Contains(p[0], "at most 4096 of up to 6000 asked") || !strings.Contains(p[0], "truncate prompts to its context") {
		t.Errorf("truncated prompts: problems %q", p)
	}
}
