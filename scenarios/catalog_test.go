package scenarios

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/llmgate/llmgate/internal/suite"
	"github.com/llmgate/llmgate/results"
)

// catalog is every suite the project ships, with what it must contain.
var catalog = []struct {
	file string
	// minRuns is the fewest runs its plan must expand to.
	minRuns int
	// mustMention are strings the suite must use (flags, kinds, metrics).
	mustMention []string
}{
	// The simulator suite `make run` uses.
	{file: "quickstart.hcl", minRuns: 2, mustMention: []string{"simulator"}},
	// Short-in/long-out and long-in/short-out.
	{file: "chat-latency.hcl", minRuns: 2, mustMention: []string{"short_in_long_out", "long_in_short_out"}},
	// Burstiness and a ramp.
	{file: "bursty.hcl", minRuns: 3, mustMention: []string{"burstiness", "ramp"}},
	// A sweep over concurrency.
	{file: "concurrency-sweep.hcl", minRuns: 4, mustMention: []string{"sweep.concurrency"}},
	// A server restart per memory point.
	{file: "memory-sweep.hcl", minRuns: 3, mustMention: []string{"--gpu-memory-utilization", "server.preemptions"}},
	// Prefix caching on vs off.
	{file: "prefix-caching.hcl", minRuns: 2, mustMention: []string{"--enable-prefix-caching", "--no-enable-prefix-caching", `kind          = "prefix"`}},
	// Structured output with a schema.
	{file: "structured-output.hcl", minRuns: 2, mustMention: []string{`kind          = "structured"`, "schema", "structured.valid_rate"}},
	// A Mixtral-class MoE with expert parallelism.
	{file: "moe.hcl", minRuns: 2, mustMention: []string{"Mixtral-8x7B", "--enable-expert-parallel", "--tensor-parallel-size"}},
	// Conversations.
	{file: "multi-turn.hcl", minRuns: 1, mustMention: []string{`kind          = "conversation"`, "turns"}},
	// Long prompts.
	{file: "long-context.hcl", minRuns: 2, mustMention: []string{"--max-model-len"}},
	// Short and long prompts judged apart: declared and quantile length buckets.
	{file: "mixed-lengths.hcl", minRuns: 2, mustMention: []string{"length_buckets", "length_quantiles", "length_bucket.long.ttft.p95", "length_bucket.q4.ttft.p95"}},
	// Production traffic replayed from two public traces.
	{file: "trace-replay.hcl", minRuns: 2, mustMention: []string{`kind       = "trace"`, `format     = "azure"`, `format     = "mooncake"`, "time_scale", "server.prefix_cache_hit_rate"}},
	// Two workloads mixed 3:1 in two load stages, judged member by member.
	{file: "mixed-traffic.hcl", minRuns: 1, mustMention: []string{"mix {", "stage {", "mix.chat.ttft.p95", "stage.2.ttft.p95"}},
	// The largest concurrency under an SLO, gated.
	{file: "capacity.hcl", minRuns: 1, mustMention: []string{"capacity {", "capacity.concurrency"}},
}

func TestCatalogIsComplete(t *testing.T) {
	files, err := filepath.Glob("*.hcl")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, c := range catalog {
		want = append(want, c.file)
	}
	sort.Strings(want)
	if diff := cmp.Diff(want, files); diff != "" {
		t.Errorf("scenarios/*.hcl differs from the catalog table (-table +files):\n%s", diff)
	}
}

func TestCatalogValidates(t *testing.T) {
	noEnv := func(string) string { return "" }
	for _, c := range catalog {
		t.Run(c.file, func(t *testing.T) {
			s, diags := suite.Load(c.file, suite.Options{Getenv: noEnv})
			if len(diags) > 0 {
				var b strings.Builder
				suite.WriteDiagnostics(&b, s.Files, diags, false)
				t.Fatalf("diagnostics (errors and warnings both fail the catalog):\n%s", b.String())
			}
			runs := s.Plan().Runs()
			if len(runs) < c.minRuns {
				t.Errorf("plan has %d runs, want at least %d", len(runs), c.minRuns)
			}
			src, err := os.ReadFile(c.file)
			if err != nil {
				t.Fatal(err)
			}
			text := string(src)
			if !strings.HasPrefix(text, "# "+strings.TrimSuffix(c.file, ".hcl")+" — ") {
				t.Errorf("does not open with a comment naming the suite and its question")
			}
			if !strings.Contains(text, "How to read the result") {
				t.Errorf("the opening comment does not say how to read the result")
			}
			for _, m := range c.mustMention {
				if !strings.Contains(text, m) {
					t.Errorf("does not mention %q", m)
				}
			}
			for _, r := range runs {
				if len(r.Asserts) == 0 && !strings.HasPrefix(r.Scenario, "ramp") && !strings.HasPrefix(r.Scenario, "free_form") {
					t.Errorf("run %s checks no SLO", r.Name)
				}
			}
			if s.Gate == nil || len(s.Gate.Tolerances) == 0 {
				t.Errorf("no gate tolerances")
			}
		})
	}
}

// TestQuickstartIsSmall keeps quickstart.hcl runnable in about 30 s on two
// cores: simulator only, few requests, moderate lengths.
func TestQuickstartIsSmall(t *testing.T) {
	s, diags := suite.Load("quickstart.hcl", suite.Options{Getenv: func(string) string { return "" }})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	total := 0
	for _, r := range s.Plan().Runs() {
		if r.Target.Kind != "simulator" {
			t.Errorf("run %s targets %s; quickstart must need no GPU or Docker", r.Name, r.Target.Ref())
		}
		if r.Load.Duration == 0 && r.Load.Requests == 0 {
			t.Errorf("run %s is unbounded", r.Name)
		}
		if r.Load.Duration > 30e9 {
			t.Errorf("run %s may take %s", r.Name, r.Load.Duration)
		}
		if w := r.Load.Workload; w.OutputTokens > 128 {
			t.Errorf("run %s asks for %d output tokens per request", r.Name, w.OutputTokens)
		}
		total += r.Load.Requests + r.Load.Warmup
	}
	if total > 400 {
		t.Errorf("quickstart sends %d requests in all; keep it under 400", total)
	}
}

// TestQuickstartScale checks the smoke run the quickstart suggests
// (--var scale=0.25) sends a quarter of the requests, so that its open loop
// lasts 2.5 s by schedule instead of 10 s.
func TestQuickstartScale(t *testing.T) {
	s, diags := suite.Load("quickstart.hcl", suite.Options{Vars: map[string]string{"scale": "0.25"}, Getenv: func(string) string { return "" }})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for _, r := range s.Plan().Runs() {
		if r.Load.Requests != 40 {
			t.Errorf("run %s sends %d requests at scale 0.25, want 40", r.Name, r.Load.Requests)
		}
		if r.Load.Rate > 0 && float64(r.Load.Requests)/r.Load.Rate > 3 {
			t.Errorf("run %s lasts %.1f s by schedule", r.Name, float64(r.Load.Requests)/r.Load.Rate)
		}
	}
}

// TestCatalogScaledRunsReachTheirLevel checks that scaled down as the
// catalog page recommends (0.1), and further (0.02), every closed
// loop still sends more than results.LevelRequestsPerUser measured requests
// per user, so that it reaches the concurrency it is named after and the
// load generator checks that it did: --var requests_per_user keeps a floor
// under --var scale.
func TestCatalogScaledRunsReachTheirLevel(t *testing.T) {
	for _, scale := range []string{"0.1", simulateScale} {
		for _, c := range catalog {
			if c.file == "quickstart.hcl" {
				continue // on the simulator already, with a scale of its own: TestQuickstartScale
			}
			s, diags := suite.Load(c.file, suite.Options{
				Vars:   map[string]string{"simulate": "true", "scale": scale},
				Getenv: func(string) string { return "" },
			})
			if diags.HasErrors() {
				t.Fatalf("%s: %v", c.file, diags)
			}
			for _, r := range s.Plan().Runs() {
				l := r.Load
				if l.OpenLoop() || l.Concurrency <= 1 || r.Capacity != nil {
					continue
				}
				if l.Requests <= results.LevelRequestsPerUser*l.Concurrency {
					t.Errorf("%s at scale %s: run %s sends %d measured requests to %d users, at most %d per user: it never reaches its level",
						c.file, scale, r.Name, l.Requests, l.Concurrency, results.LevelRequestsPerUser)
				}
			}
		}
	}
}
