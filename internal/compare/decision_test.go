package compare

import (
	"errors"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/internal/comparetest"
	"github.com/llmgate/llmgate/results"
)

// TestDecide checks that nothing judged is never a pass: invalid or partial
// current runs make an error, a baseline run the current file lacks fails
// unless narrowed with Only, and without a baseline an invalid run is
// still an error.
func TestDecide(t *testing.T) {
	env := results.Environment{Model: "m"}
	run := func(name string, seed uint64) comparetest.RunSpec {
		return comparetest.RunSpec{Name: name, TTFT: 100, TPOT: 9, E2EL: 2000, OutTokPerSec: 1000, ReqPerSec: 4, CV: 0.1, Seed: seed}
	}
	bad := func(s comparetest.RunSpec, status results.Status) comparetest.RunSpec { s.Status = status; return s }
	twoRuns := comparetest.File(env, run("chat", 1), run("batch", 2))
	tests := []struct {
		name      string
		base, cur *results.File
		only      []string
		partial   bool
		problem   error
		want      Decision
		missing   int
		skipped   int
	}{
		{name: "all judged", base: twoRuns, cur: comparetest.File(env, run("chat", 3), run("batch", 4)), want: DecisionPass},
		{name: "invalid current run", base: twoRuns, cur: comparetest.File(env, run("chat", 3), bad(run("batch", 4), results.StatusInvalid)), want: DecisionError},
		{name: "failed current run", base: twoRuns, cur: comparetest.File(env, run("chat", 3), bad(run("batch", 4), results.StatusFailed)), want: DecisionError},
		{name: "partial file, a run never ran", base: twoRuns, cur: comparetest.File(env, run("chat", 3)), partial: true, want: DecisionError, missing: 1},
		{name: "missing run fails", base: twoRuns, cur: comparetest.File(env, run("chat", 3)), want: DecisionFail, missing: 1},
		{name: "narrowed on purpose", base: twoRuns, cur: comparetest.File(env, run("chat", 3)), only: []string{"ch*"}, want: DecisionPass, skipped: 1},
		{name: "invalid baseline run", base: comparetest.File(env, run("chat", 1), bad(run("batch", 2), results.StatusInvalid)),
			cur: comparetest.File(env, run("chat", 3), run("batch", 4)), want: DecisionError},
		{name: "no baseline, invalid run", cur: comparetest.File(env, bad(run("chat", 3), results.StatusInvalid)), want: DecisionError},
		{name: "no baseline, all valid", cur: comparetest.File(env, run("chat", 3)), want: DecisionPass},
		{name: "problem outside the files", base: twoRuns, cur: comparetest.File(env, run("chat", 3), run("batch", 4)),
			problem: errors.New("start server.vllm: timeout"), want: DecisionError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cur.Partial = tt.partial
			cfg := DefaultConfig()
			cfg.Only = tt.only
			c := Compare(tt.base, tt.cur, cfg)
			if tt.problem != nil {
				c.AddProblem(tt.problem)
			}
			if got := c.Decide(); got != tt.want {
				t.Errorf("Decide() = %q, want %q (not judged: %+v)", got, tt.want, c.NotJudged)
			}
			if got := len(c.MissingRuns()); got != tt.missing && !tt.partial {
				t.Errorf("%d missing runs %v, want %d", got, c.MissingRuns(), tt.missing)
			}
			if got := len(c.SkippedRuns()); got != tt.skipped {
				t.Errorf("%d skipped runs, want %d", got, tt.skipped)
			}
			if (c.Decide() == DecisionError) != (len(c.NotJudged)+len(c.RunsNeverRan()) > 0) {
				t.Errorf("decision %q but not judged %+v, never ran %v", c.Decide(), c.NotJudged, c.RunsNeverRan())
			}
		})
	}
}

// TestCheckComparable checks that a baseline of another suite, or with a
// run of the same name but another scenario, other sweep values or
// another recorded load or workload, is refused with both sides named,
// and that runs on one side only are left to Compare.
func TestCheckComparable(t *testing.T) {
	env := results.Environment{}
	spec := comparetest.RunSpec{Name: "sweep[rate=4]", Scenario: "sweep", Params: map[string]string{"rate": "4"}, TTFT: 100, TPOT: 9, E2EL: 2000}
	load := func() *results.LoadConfig {
		return &results.LoadConfig{Concurrency: 4, Rate: 4, Burstiness: 1, Requests: 200, Seed: 7, Warmup: 10,
			Workload: "random", InputTokens: 256, OutputTokens: 128, RangeRatio: 0.5, LengthQuantiles: 3, LengthBuckets: []int{200, 300}}
	}
	base := comparetest.File(env, spec)
	base.Runs[0].Load = load()
	loaded := func(edit func(*results.LoadConfig)) func(*results.File) {
		return func(f *results.File) { edit(f.Runs[0].Load) }
	}
	tests := []struct {
		name string
		edit func(*results.File)
		want string // "" for comparable
	}{
		{name: "same plan", edit: func(*results.File) {}},
		{name: "extra run", edit: func(f *results.File) { r := f.Runs[0]; r.Name = "other"; f.Runs = append(f.Runs, r) }},
		{name: "another suite", edit: func(f *results.File) { f.Suite.Name = "other" }, want: `suite "fixture", the current results of suite "other"`},
		{name: "another scenario", edit: func(f *results.File) { f.Runs[0].Scenario = "chat" }, want: `scenario "sweep" in the baseline, "chat" now`},
		{name: "other load", edit: func(f *results.File) { f.Runs[0].Params = map[string]string{"rate": "8"} }, want: "sweep values rate=4 in the baseline, rate=8 now"},
		{name: "other concurrency", edit: loaded(func(l *results.LoadConfig) { l.Concurrency = 16 }), want: "run sweep[rate=4]: concurrency 4 in the baseline, 16 now"},
		{name: "no concurrency cap", edit: loaded(func(l *results.LoadConfig) { l.Concurrency = 0 }), want: "concurrency 4 in the baseline, none now"},
		{name: "other rate", edit: loaded(func(l *results.LoadConfig) { l.Rate = 4.5 }), want: "rate 4 req/s in the baseline, 4.5 req/s now"},
		{name: "other burstiness", edit: loaded(func(l *results.LoadConfig) { l.Burstiness = 0.5 }), want: "burstiness 1 in the baseline, 0.5 now"},
		{name: "a ramp", edit: loaded(func(l *results.LoadConfig) { l.Ramp, l.RampFrom, l.RampOverS = "linear", 1, 30 }), want: "ramp none in the baseline, linear from 1 req/s over 30 s now"},
		{name: "other requests", edit: loaded(func(l *results.LoadConfig) { l.Requests = 400 }), want: "requests 200 in the baseline, 400 now"},
		{name: "a duration instead", edit: loaded(func(l *results.LoadConfig) { l.Requests, l.DurationS = 0, 60 }),
			want: "requests 200 in the baseline, none now, duration none in the baseline, 60 s now"},
		{name: "other workload", edit: loaded(func(l *results.LoadConfig) { l.Workload = "dataset"; l.DatasetFilter = "vllm_bench" }),
			want: "workload random in the baseline, dataset now, dataset filter none in the baseline, vllm_bench now"},
		{name: "other lengths", edit: loaded(func(l *results.LoadConfig) { l.InputTokens, l.OutputTokens = 1024, 64 }),
			want: "input tokens 256 in the baseline, 1024 now, output tokens 128 in the baseline, 64 now"},
		{name: "other spread", edit: loaded(func(l *results.LoadConfig) { l.RangeRatio = 0 }), want: "range ratio 0.5 in the baseline, none now"},
		{name: "chat", edit: loaded(func(l *results.LoadConfig) { l.Chat = true }), want: "endpoint completions in the baseline, chat completions now"},
		{name: "other quantile count", edit: loaded(func(l *results.LoadConfig) { l.LengthQuantiles = 4 }), want: "length buckets 3 quantiles in the baseline, 4 quantiles now"},
		{name: "declared edges", edit: loaded(func(l *results.LoadConfig) { l.LengthQuantiles = 0 }), want: "length buckets 3 quantiles in the baseline, edges 200,300 now"},
		{name: "other seed, warmup and quantile edges", edit: loaded(func(l *results.LoadConfig) { l.Seed, l.Warmup, l.LengthBuckets = 8, 0, []int{210, 290} })},
		{name: "thinking off", edit: loaded(func(l *results.LoadConfig) {
			l.Request = &results.RequestShape{ExtraBody: `{"chat_template_kwargs":{"enable_thinking":false}}`}
		}), want: `request extra_body none in the baseline, {"chat_template_kwargs":{"enable_thinking":false}} now`},
		{name: "a header", edit: loaded(func(l *results.LoadConfig) {
			l.Request = &results.RequestShape{Headers: []results.RequestHeader{{Name: "X-Tenant", Value: "team-a"}}}
		}), want: "request headers none in the baseline, X-Tenant: team-a now"},
		{name: "load not recorded now", edit: func(f *results.File) { f.Runs[0].Load = nil }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cur := comparetest.File(env, spec)
			cur.Runs[0].Load = load()
			tt.edit(cur)
			err := CheckComparable(base, cur)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("CheckComparable: %v, want nil", err)
			case tt.want != "" && (err == nil || !errors.Is(err, ErrNotComparable) || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("CheckComparable = %v, want ErrNotComparable with %q", err, tt.want)
			}
		})
	}
}
