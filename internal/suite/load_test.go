package suite

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"
	"github.com/llmgate/llmgate/internal/plan"
	"github.com/llmgate/llmgate/runspec"
)

// mustLoad loads a suite from source text written to a temp dir and fails on any error.
func mustLoad(t *testing.T, src string, opts Options) *Suite {
	t.Helper()
	s, diags := loadText(t, src, opts)
	if diags.HasErrors() {
		var b strings.Builder
		WriteDiagnostics(&b, s.Files, diags, false)
		t.Fatalf("unexpected errors:\n%s", b.String())
	}
	return s
}

func loadText(t *testing.T, src string, opts Options) (*Suite, hcl.Diagnostics) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "suite.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if opts.Getenv == nil {
		opts.Getenv = func(string) string { return "" }
	}
	return Load(path, opts)
}

// errorsOf loads src and returns "summary: detail" of each error.
func errorsOf(t *testing.T, src string) []string {
	t.Helper()
	_, diags := loadText(t, src, Options{})
	var out []string
	for _, d := range diags.Errs() {
		out = append(out, d.Error())
	}
	return out
}

func runNames(s *Suite) []string {
	var names []string
	for _, sc := range s.Scenarios {
		for _, r := range sc.Runs {
			names = append(names, r.Name)
		}
	}
	return names
}

func TestLoadDesignExample(t *testing.T) {
	s, diags := Load("../../testdata/suites/good/design.hcl", Options{Getenv: func(k string) string {
		return map[string]string{"HF_TOKEN": "hf_secret", "VLLM_API_KEY": "key"}[k]
	}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if s.Name != "llama-8b-gate" || s.Description != "PR gate for Llama-3.1-8B on one H100" {
		t.Errorf("suite identity %q %q", s.Name, s.Description)
	}
	vllm := s.Targets["server.vllm"]
	want := &plan.Target{Target: runspec.Target{
		Kind: "server", Name: "vllm", Image: "vllm/vllm-openai:v0.11.0", Model: "meta-llama/Llama-3.1-8B-Instruct",
		Args: []string{"--max-num-seqs", "256"}, Env: map[string]string{"HF_TOKEN": "hf_secret"},
		GPUs: "all", StartupTimeout: 20 * time.Minute,
	}}
	if diff := cmp.Diff(want, vllm, cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".DeclRange" }, cmp.Ignore())); diff != "" {
		t.Errorf("server.vllm (-want +got):\n%s", diff)
	}
	if got := s.Targets["endpoint.staging"]; got.URL != "http://vllm.staging:8000" || got.APIKey != "key" {
		t.Errorf("endpoint.staging = %+v", got)
	}
	wantNames := []string{
		"chat_interactive", "bursty_traffic",
		"concurrency_sweep[concurrency=1]", "concurrency_sweep[concurrency=8]", "concurrency_sweep[concurrency=16]",
		"concurrency_sweep[concurrency=32]", "concurrency_sweep[concurrency=64]",
		"memory_sweep[gpu_memory_utilization=0.7]", "memory_sweep[gpu_memory_utilization=0.8]",
		"memory_sweep[gpu_memory_utilization=0.85]", "memory_sweep[gpu_memory_utilization=0.9]",
		"memory_sweep[gpu_memory_utilization=0.92]",
	}
	if diff := cmp.Diff(wantNames, runNames(s)); diff != "" {
		t.Errorf("run names (-want +got):\n%s", diff)
	}
	bursty := s.Scenarios[1].Runs[0]
	wantLoad := runspec.Load{Rate: 20, Burstiness: 0.5, Duration: 3 * time.Minute, Warmup: 20,
		Workload: runspec.Workload{Kind: "random", InputTokens: 512, OutputTokens: 256}}
	if diff := cmp.Diff(wantLoad, bursty.Load); diff != "" {
		t.Errorf("bursty load (-want +got):\n%s", diff)
	}
	if bursty.Goodput != (plan.Goodput{TTFT: 500, TPOT: 100}) {
		t.Errorf("goodput from defaults = %+v", bursty.Goodput)
	}
	mem := s.Scenarios[3].Runs[2]
	if diff := cmp.Diff([]string{"--gpu-memory-utilization", "0.85"}, mem.ServerArgs); diff != "" {
		t.Errorf("server args (-want +got):\n%s", diff)
	}
	if mem.ParamMap()["gpu_memory_utilization"] != "0.85" {
		t.Errorf("params %v", mem.ParamMap())
	}
	g := s.Gate
	if g == nil || g.Baseline != "perf/baseline.json" || g.Alpha != 0.05 || len(g.Tolerances) != 3 {
		t.Fatalf("gate = %+v", g)
	}
	wantTol := []plan.Tolerance{{Metric: "ttft.p95", Relative: true, Amount: 0.10}, {Metric: "throughput.output_tokens", Relative: true, Amount: 0.05}, {Metric: "e2el.p99", Amount: 200}}
	if diff := cmp.Diff(wantTol, g.Tolerances, cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".DeclRange" }, cmp.Ignore())); diff != "" {
		t.Errorf("tolerances (-want +got):\n%s", diff)
	}
}

func TestDefaultsInheritedFieldByField(t *testing.T) {
	s, diags := Load("../../testdata/suites/good/inheritance.hcl", Options{Getenv: func(k string) string {
		if k == "STAGING_KEY" {
			return "sk-1"
		}
		return ""
	}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	byName := map[string]*plan.Run{}
	for _, sc := range s.Scenarios {
		for _, r := range sc.Runs {
			byName[r.Name] = r
		}
	}
	base := byName["inherits_everything"]
	if base.Target.Ref() != "simulator.sim" || base.Load.Concurrency != 4 || base.Load.Requests != 100 || base.Load.Warmup != 5 || base.Load.Seed != 42 {
		t.Errorf("inherited load = %+v on %s", base.Load, base.Target.Ref())
	}
	over := byName["overrides_some"]
	if over.Target.Ref() != "endpoint.staging" || over.Target.APIKey != "sk-1" {
		t.Errorf("target override = %s key %q", over.Target.Ref(), over.Target.APIKey)
	}
	if over.Load.Concurrency != 16 || over.Load.Requests != 100 || over.Load.Warmup != 5 {
		t.Errorf("load override kept the wrong fields: %+v", over.Load)
	}
	if over.Load.Workload.InputTokens != 256 || over.Load.Workload.OutputTokens != 512 {
		t.Errorf("workload override: %+v", over.Load.Workload)
	}
	if over.Goodput != (plan.Goodput{TTFT: 500, TPOT: 50}) {
		t.Errorf("goodput override: %+v", over.Goodput)
	}
	st := byName["structured"].Load.Workload
	if st.Kind != "structured" || !st.Chat || !strings.Contains(st.Schema, `"required":["name","age"]`) {
		t.Errorf("structured workload from file(): %+v", st)
	}
	grid := byName["grid[concurrency=4,max_tokens=64]"]
	if grid == nil {
		t.Fatalf("runs: %v", runNames(s))
	}
	if grid.Load.Concurrency != 4 || grid.Load.Workload.OutputTokens != 64 || strings.Join(grid.ServerArgs, " ") != "--max-num-seqs 8" {
		t.Errorf("grid point: load %+v args %v", grid.Load, grid.ServerArgs)
	}
	if len(s.Scenarios[3].Runs) != 6 {
		t.Errorf("2x3 sweep gave %d runs", len(s.Scenarios[3].Runs))
	}
	if s.Gate.Alpha != 0.01 || s.Gate.Tolerances[1].Amount != 500 || s.Gate.Tolerances[2].Amount != 0.01 {
		t.Errorf("gate: %+v", s.Gate)
	}
}

func TestImplicitSimulator(t *testing.T) {
	s := mustLoad(t, `scenario "a" {
  load {
    concurrency = 1
    requests    = 1
  }
}`, Options{})
	r := s.Scenarios[0].Runs[0]
	if r.Target == nil || r.Target.Ref() != "simulator.default" || r.Target.Profile != DefaultProfile {
		t.Fatalf("target = %+v", r.Target)
	}
	if s.Targets["simulator.default"] != r.Target {
		t.Errorf("implicit target missing from Suite.Targets")
	}
	if s.Name != "suite" {
		t.Errorf("suite name from file name = %q", s.Name)
	}
}

func TestTargetSelection(t *testing.T) {
	const two = `
simulator "a" {}
simulator "b" {}
`
	const scen = `
scenario "s" {
  load {
    concurrency = 1
    requests    = 1
  }
}`
	tests := []struct {
		name    string
		src     string
		wantRef string // "" means an error is expected
		wantErr string
	}{
		// The only declared target is used without naming it.
		{name: "single target", src: `simulator "only" {}` + scen, wantRef: "simulator.only"},
		// Several targets and none named is ambiguous.
		{name: "ambiguous", src: two + scen, wantErr: "names no target"},
		// defaults picks one of several.
		{name: "from defaults", src: two + "defaults { target = simulator.b }" + scen, wantRef: "simulator.b"},
		// A quoted reference is not a reference.
		{name: "quoted", src: two + `defaults { target = "simulator.b" }` + scen, wantErr: "without quotes"},
		// A reference to something that is not a target kind.
		{name: "wrong kind", src: two + `defaults { target = simulatr.b }` + scen, wantErr: "not a target"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, diags := loadText(t, tt.src, Options{})
			if tt.wantErr != "" {
				if !strings.Contains(diags.Error(), tt.wantErr) {
					t.Fatalf("diagnostics %q lack %q", diags.Error(), tt.wantErr)
				}
				return
			}
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			if got := s.Scenarios[0].Runs[0].Target.Ref(); got != tt.wantRef {
				t.Errorf("target %s, want %s", got, tt.wantRef)
			}
		})
	}
}

func TestVariablePrecedence(t *testing.T) {
	const src = `
variable "n" { default = 2 }
variable "img" {}
server "s" {
  image = var.img
  model = "m"
}
scenario "a" {
  load {
    concurrency = var.n
    requests    = 10
  }
}`
	tests := []struct {
		name    string
		vars    map[string]string
		env     map[string]string
		wantN   int
		wantImg string
		wantErr string
	}{
		// --var sets a variable without default; n keeps its default.
		{name: "flag", vars: map[string]string{"img": "a:1"}, wantN: 2, wantImg: "a:1"},
		// LLMGATE_VAR_ works like --var, converted to the default's type.
		{name: "env", env: map[string]string{"LLMGATE_VAR_img": "b:2", "LLMGATE_VAR_n": "7"}, wantN: 7, wantImg: "b:2"},
		// --var wins over the environment.
		{name: "flag beats env", vars: map[string]string{"img": "a:1", "n": "3"}, env: map[string]string{"LLMGATE_VAR_n": "7", "LLMGATE_VAR_img": "b"}, wantN: 3, wantImg: "a:1"},
		// A variable with no default and no value is an error naming both ways to set it.
		{name: "unset", wantErr: "--var img=VALUE or the environment variable LLMGATE_VAR_img"},
		// A value that does not convert to the default's type is an error.
		{name: "bad number", vars: map[string]string{"img": "x", "n": "lots"}, wantErr: "Invalid value for variable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, diags := loadText(t, src, Options{Vars: tt.vars, Getenv: func(k string) string { return tt.env[k] }})
			if tt.wantErr != "" {
				if !strings.Contains(diags.Error(), tt.wantErr) {
					t.Fatalf("diagnostics %q lack %q", diags.Error(), tt.wantErr)
				}
				return
			}
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			r := s.Scenarios[0].Runs[0]
			if r.Load.Concurrency != tt.wantN || r.Target.Image != tt.wantImg {
				t.Errorf("n=%d img=%q, want %d %q", r.Load.Concurrency, r.Target.Image, tt.wantN, tt.wantImg)
			}
		})
	}
}

// TestUndeclaredVarFlag checks a --var that names no variable of the
// suite: an error (with the declared name it is a typo of), a warning only
// where the suite block says undeclared_vars = "warn", and undeclared_vars
// itself checked.
func TestUndeclaredVarFlag(t *testing.T) {
	const body = `
variable "image" { default = "vllm/vllm-openai:v0.11.0" }
scenario "a" {
  load {
    concurrency = 1
    requests    = 1
  }
}`
	tests := []struct {
		name, suite string
		wantSev     hcl.DiagnosticSeverity
		want        []string
		wantPos     string // file:line:col suffix of the subject, "" for none
	}{
		{name: "typo is an error", suite: body, wantSev: hcl.DiagError,
			want: []string{"--var imgae", `no variable "imgae"`, `Did you mean "image"?`, `undeclared_vars = "warn"`}},
		{name: "error said explicitly", suite: `suite "s" { undeclared_vars = "error" }` + body, wantSev: hcl.DiagError,
			want: []string{`Did you mean "image"?`}},
		{name: "warn", suite: `suite "s" { undeclared_vars = "warn" }` + body, wantSev: hcl.DiagWarning,
			want: []string{"it is ignored", `Did you mean "image"?`}},
		{name: "misspelled policy", suite: `suite "s" { undeclared_vars = "warning" }` + body, wantSev: hcl.DiagError,
			want: []string{"Invalid undeclared_vars", `"error" (the default`, `or "warn"`}, wantPos: ":1:31"},
		{name: "policy from a variable", suite: `suite "s" { undeclared_vars = var.image }` + body, wantSev: hcl.DiagError,
			want: []string{"Invalid undeclared_vars", "literal string"}, wantPos: ":1:31"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, diags := loadText(t, tt.suite, Options{Vars: map[string]string{"imgae": "x"}})
			var text strings.Builder
			worst := hcl.DiagWarning
			for _, d := range diags {
				text.WriteString(d.Summary + ": " + d.Detail + "\n")
				if d.Severity == hcl.DiagError {
					worst = hcl.DiagError
				}
			}
			if len(diags) == 0 || worst != tt.wantSev {
				t.Fatalf("severity: want %v, got %v", tt.wantSev, diags)
			}
			for _, w := range tt.want {
				if !strings.Contains(text.String(), w) {
					t.Errorf("diagnostics lack %q:\n%s", w, text.String())
				}
			}
			if tt.wantPos != "" {
				found := false
				for _, d := range diags {
					if d.Subject != nil && strings.HasSuffix(fmt.Sprintf("%s:%d:%d", d.Subject.Filename, d.Subject.Start.Line, d.Subject.Start.Column), tt.wantPos) {
						found = true
					}
				}
				if !found {
					t.Errorf("no diagnostic at %s: %v", tt.wantPos, diags)
				}
			}
		})
	}
	// A declared --var is no diagnostic at all, under either policy.
	for _, policy := range []string{"", `suite "s" { undeclared_vars = "warn" }`} {
		if _, diags := loadText(t, policy+body, Options{Vars: map[string]string{"image": "x"}}); len(diags) != 0 {
			t.Errorf("%q with a declared --var: %v", policy, diags)
		}
	}
}

// TestValueChecks covers the impossible values of the issue, one per row,
// with the message fragment a user should see.
func TestValueChecks(t *testing.T) {
	wrap := func(load, workload string) string {
		return "scenario \"s\" {\n  load {\n" + load + "\n  }\n  workload {\n" + workload + "\n  }\n}\n"
	}
	const ok = "concurrency = 1\nrequests = 10"
	tests := []struct {
		name string
		src  string
		want string
	}{
		// A fractional concurrency.
		{name: "fractional concurrency", src: wrap("concurrency = 1.5\nrequests = 10", ""), want: "must be a whole number"},
		// A duration given as a number.
		{name: "numeric duration", src: wrap("concurrency = 1\nduration = 30", ""), want: "duration string with a unit"},
		// Ramp without a rate.
		{name: "ramp without rate", src: wrap("concurrency = 1\nrequests = 10\nramp {\nover = \"1m\"\n}", ""), want: "Ramp without a rate"},
		// Ramp of an unknown kind.
		{name: "ramp kind", src: wrap("rate = 5\nrequests = 10\nramp {\nkind = \"linaer\"\nover = \"1m\"\n}", ""), want: `Did you mean "linear"?`},
		// ramp_up as long as the run.
		{name: "ramp_up too long", src: wrap("concurrency = 4\nduration = \"10s\"\nramp_up = \"10s\"", ""), want: "ramp_up longer than the run"},
		// ramp_up that is no duration.
		{name: "ramp_up number", src: wrap("concurrency = 4\nrequests = 10\nramp_up = 5", ""), want: "duration string with a unit"},
		// text_prompts on a chat workload.
		{name: "text_prompts with chat", src: wrap(ok, "chat = true\ntext_prompts = true"), want: "text_prompts with chat"},
		// Burstiness on a closed loop.
		{name: "burstiness without rate", src: wrap("concurrency = 4\nburstiness = 0.5\nrequests = 10", ""), want: "set rate"},
		// range_ratio of 1 would allow zero-length prompts.
		{name: "range ratio", src: wrap(ok, "range_ratio = 1"), want: "below 1"},
		// A prefix workload without a prefix length.
		{name: "prefix without length", src: wrap(ok, "kind = \"prefix\""), want: "needs prefix_tokens"},
		// A structured workload without a schema.
		{name: "structured without schema", src: wrap(ok, "kind = \"structured\""), want: "needs schema"},
		// A schema that is not JSON.
		{name: "schema not json", src: wrap(ok, "kind = \"structured\"\nschema = \"{nope\""), want: "not valid JSON"},
		// A schema that is JSON but not a JSON schema.
		{name: "schema invalid", src: wrap(ok, "kind = \"structured\"\nschema = { type = 12 }"), want: "not a valid JSON schema"},
		// A dataset that is not there.
		{name: "missing dataset", src: wrap(ok, "kind = \"dataset\"\ndataset = \"sharegpt.json\""), want: "Dataset not found"},
		// Conversation with zero turns.
		{name: "zero turns", src: wrap(ok, "kind = \"conversation\"\nturns = 0"), want: "must be at least 1"},
		// A think time that is no duration, or none at all.
		{name: "think time number", src: wrap(ok, "kind = \"conversation\"\nthink_time = 2"), want: "duration string with a unit"},
		// Length buckets that do not increase, are not whole, or are no list.
		{name: "length buckets order", src: wrap(ok, "length_buckets = [2048, 512]"), want: "must increase"},
		{name: "length buckets fraction", src: wrap(ok, "length_buckets = [1.5]"), want: "whole number of tokens"},
		{name: "length buckets zero", src: wrap(ok, "length_buckets = [0, 10]"), want: "whole number of tokens"},
		{name: "length buckets scalar", src: wrap(ok, "length_buckets = 512"), want: "must be a list"},
		{name: "length buckets empty", src: wrap(ok, "length_buckets = []"), want: "is empty"},
		{name: "length buckets strings", src: wrap(ok, "length_buckets = [\"a\"]"), want: "must be a list"},
		{name: "think time zero", src: wrap(ok, "kind = \"conversation\"\nthink_time = \"0s\""), want: "longer than zero"},
		// A shm_size without a unit that parses.
		{name: "shm size", src: "server \"v\" {\nimage = \"i\"\nmodel = \"m\"\nshm_size = \"lots\"\n}\n" + wrap(ok, ""), want: "shm_size"},
		// An endpoint URL without a scheme.
		{name: "endpoint url", src: "endpoint \"e\" {\nurl = \"vllm:8000\"\n}\n" + wrap(ok, ""), want: "http:// or https://"},
		// server_args on an endpoint.
		{name: "args on endpoint", src: "endpoint \"e\" {\nurl = \"http://h:1\"\n}\nscenario \"s\" {\nserver_args = [\"--x\"]\nload {\n" + ok + "\n}\n}\n", want: "endpoint llmgate does not start"},
		// --gpu-memory-utilization=0 in a server's args.
		{name: "gpu mem equals form", src: "server \"v\" {\nimage = \"i\"\nmodel = \"m\"\nargs = [\"--gpu-memory-utilization=0\"]\n}\n" + wrap(ok, ""), want: "outside (0, 1]"},
		// A sweep key that is not a list.
		{name: "sweep scalar", src: "scenario \"s\" {\nsweep {\nconcurrency = 8\n}\nload {\n" + ok + "\n}\n}\n", want: "must be a list of values"},
		// A sweep block with no keys.
		{name: "sweep no keys", src: "scenario \"s\" {\nsweep {}\nload {\n" + ok + "\n}\n}\n", want: "at least one key"},
		// The same value twice collides run names.
		{name: "sweep duplicate", src: "scenario \"s\" {\nsweep {\nconcurrency = [1, 1]\n}\nload {\n" + ok + "\n}\n}\n", want: "lists 1 twice"},
		// A cross product of 1,600 points.
		{name: "sweep too large", src: "scenario \"s\" {\nsweep {\na = range(40)\nb = range(40)\n}\nload {\n" + ok + "\n}\n}\n", want: "Sweep too large"},
		// sweep.* in a scenario without a sweep.
		{name: "no sweep", src: wrap("concurrency = sweep.concurrency\nrequests = 10", ""), want: "has no sweep block"},
		// An assert naming a metric group instead of a metric.
		{name: "metric group", src: "scenario \"s\" {\nload {\n" + ok + "\n}\nassert \"a\" {\ncondition = ttft < 5\n}\n}\n", want: "is a group of metrics"},
		// An assert referencing something that is neither metric, sweep nor var.
		{name: "assert unknown root", src: "scenario \"s\" {\nload {\n" + ok + "\n}\nassert \"a\" {\ncondition = latency.p95 < 5\n}\n}\n", want: "There is nothing named \"latency.p95\""},
		// A sweep key without its prefix, a variable without its prefix, a
		// misspelt sweep key without its prefix.
		{name: "bare sweep key", src: "scenario \"s\" {\nsweep {\nconcurrency = [1, 4]\n}\nload {\nconcurrency = concurrency\nrequests = 10\n}\n}\n",
			want: "concurrency is a key of this scenario's sweep: did you mean sweep.concurrency?"},
		{name: "bare variable", src: "variable \"users\" { default = 4 }\n" + wrap("concurrency = users\nrequests = 10", ""),
			want: "users is a variable of the suite: did you mean var.users?"},
		{name: "bare misspelt sweep key", src: "scenario \"s\" {\nsweep {\nconcurrency = [1, 4]\n}\nload {\nconcurrency = concurency\nrequests = 10\n}\n}\n",
			want: "Did you mean sweep.concurrency?"},
		// Two asserts with one name.
		{name: "duplicate assert", src: "scenario \"s\" {\nload {\n" + ok + "\n}\nassert \"a\" {\ncondition = ttft.p95 < 5\n}\nassert \"a\" {\ncondition = ttft.p99 < 5\n}\n}\n", want: "Duplicate assert block"},
		// A tolerance on a ms metric without a unit.
		{name: "tolerance without unit", src: wrap(ok, "") + "gate {\ntolerance \"ttft.p95\" { max_regression = \"200\" }\n}\n", want: "has no unit"},
		// alpha outside (0,1).
		{name: "alpha", src: wrap(ok, "") + "gate {\nalpha = 5\n}\n", want: "between 0 and 1"},
		// An unknown function with a suggestion.
		{name: "unknown function", src: wrap("concurrency = mx(1, 2)\nrequests = 10", ""), want: "Call to unknown function"},
		// A bad scenario name would make run names ambiguous.
		{name: "scenario name", src: "scenario \"a b\" {\nload {\n" + ok + "\n}\n}\n", want: "Invalid scenario name"},
		// A suite without scenarios does nothing.
		{name: "no scenarios", src: "simulator \"s\" {}\n", want: "No scenarios"},
		// file() of a missing file.
		{name: "file missing", src: "suite \"x\" {\ndescription = file(\"nope.txt\")\n}\n" + wrap(ok, ""), want: "nope.txt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := errorsOf(t, tt.src)
			if !strings.Contains(strings.Join(errs, "\n"), tt.want) {
				t.Errorf("errors %q lack %q", errs, tt.want)
			}
		})
	}
}

func TestScalarText(t *testing.T) {
	s := mustLoad(t, `scenario "s" {
  sweep {
    gmu  = [0.7, 0.925, 1]
    mode = ["a", "b"]
    on   = [true]
  }
  server_args = ["--x", sweep.gmu, "--y", 1024, "--z", sweep.on]
  load {
    concurrency = 1
    requests    = 1
  }
}`, Options{})
	want := []string{
		"s[gmu=0.7,mode=a,on=true]", "s[gmu=0.7,mode=b,on=true]",
		"s[gmu=0.925,mode=a,on=true]", "s[gmu=0.925,mode=b,on=true]",
		"s[gmu=1,mode=a,on=true]", "s[gmu=1,mode=b,on=true]",
	}
	if diff := cmp.Diff(want, runNames(s)); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	if got := strings.Join(s.Scenarios[0].Runs[2].ServerArgs, " "); got != "--x 0.925 --y 1024 --z true" {
		t.Errorf("server args %q", got)
	}
}

// TestOnePassReachesEverything checks mistakes that could hide others are
// reported together with them, and that a sweep key nothing uses warns.
func TestOnePassReachesEverything(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		want  []string // summaries that must all be reported
		never string   // a summary that must not be
		clean bool     // no error at all
	}{
		// A duplicate scenario's own mistakes are reported too.
		{name: "duplicate scenario body", src: `
scenario "a" {
  load {
    concurrency = 1
    requests    = 1
  }
}
scenario "a" {
  load {
    concurrency = 0
    requests    = 1
  }
}`, want: []string{"Duplicate scenario block", "Invalid concurrency"}},
		// A sweep that can't expand still lets the rest of the scenario be checked.
		{name: "broken sweep", src: `
scenario "a" {
  sweep { concurrency = [1, "eight"] }
  load {
    concurrency = sweep.concurency
    requests    = 0
  }
}`, want: []string{"Sweep values of the wrong type", "Reference to undefined sweep key", "Invalid request count"}},
		// A sweep key nothing refers to makes identical runs: a warning.
		{name: "unused sweep key", src: `
scenario "a" {
  sweep { users = [1, 8] }
  load {
    concurrency = 4
    requests    = 10
  }
}`, want: []string{"Unused sweep key"}},
		// A sweep key used only through defaults is used.
		{name: "sweep key used in defaults", src: `
defaults {
  load {
    concurrency = sweep.users
    requests    = 10
  }
}
scenario "a" {
  sweep { users = [1, 8] }
}`, never: "Unused sweep key"},
		// Index syntax counts as a use.
		{name: "sweep key used by index", src: `
scenario "a" {
  sweep {
    users = [1, 8]
    tag   = ["x", "y"]
  }
  workload {
    kind          = "random"
    input_tokens  = 10
    output_tokens = 10
  }
  load {
    concurrency = sweep["users"]
    requests    = 10
  }
  assert "x" {
    condition     = ttft.p95 < 500
    error_message = "tag ${sweep["tag"]}"
  }
}`, never: "Unused sweep key", clean: true},
		// A misspelled reference explains the unused key: only the error shows.
		{name: "unused because misspelled", src: `
scenario "a" {
  sweep { users = [1, 8] }
  load {
    concurrency = sweep.user
    requests    = 10
  }
}`, want: []string{"Reference to undefined sweep key"}, never: "Unused sweep key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, diags := loadText(t, tt.src, Options{})
			got := map[string]bool{}
			for _, d := range diags {
				got[d.Summary] = true
			}
			for _, w := range tt.want {
				if !got[w] {
					t.Errorf("no %q among %v", w, diags)
				}
			}
			if tt.never != "" && got[tt.never] {
				t.Errorf("unexpected %q among %v", tt.never, diags)
			}
			if tt.clean && diags.HasErrors() {
				t.Errorf("unexpected errors: %v", diags)
			}
		})
	}
}

// TestRequiredArguments checks each block's required argument is reported
// when absent (gohcl leaves *hcl.Attribute fields optional), and that a
// misspelling of that very argument is reported instead.
func TestRequiredArguments(t *testing.T) {
	const scenario = "scenario \"a\" {\n  load {\n    concurrency = 1\n    requests = 1\n  }\n}\n"
	tests := []struct {
		name string
		src  string
		want []string // the details of the errors, in order (substrings)
	}{
		// A server without image and model.
		{name: "server", src: "server \"s\" {\n  gpus = \"all\"\n}\n" + scenario,
			want: []string{`"image" is required`, `"model" is required`}},
		// A misspelled image explains the missing image only; model is still missing.
		{name: "server typo", src: "server \"s\" {\n  imag = \"x\"\n}\n" + scenario,
			want: []string{`"model" is required`, `Did you mean "image"?`}},
		// An endpoint without url.
		{name: "endpoint", src: "endpoint \"e\" {\n  model = \"m\"\n}\n" + scenario,
			want: []string{`"url" is required`}},
		// An assert without a condition would pass forever.
		{name: "assert", src: "scenario \"a\" {\n  load {\n    concurrency = 1\n    requests = 1\n  }\n  assert \"x\" {\n    error_message = \"m\"\n  }\n}\n",
			want: []string{`"condition" is required`}},
		// A tolerance without max_regression would gate nothing.
		{name: "tolerance", src: scenario + "gate {\n  tolerance \"ttft.p95\" {}\n}\n",
			want: []string{`"max_regression" is required`}},
		// A ramp without over.
		{name: "ramp", src: "scenario \"a\" {\n  load {\n    rate = 1\n    requests = 1\n    ramp {\n      from = 0\n    }\n  }\n}\n",
			want: []string{`"over" is required`}},
		// A defaults target in quotes is reported even when every scenario names its own.
		{name: "defaults target", src: "simulator \"sim\" {}\ndefaults {\n  target = \"simulator.sim\"\n}\nscenario \"a\" {\n  target = simulator.sim\n  load {\n    concurrency = 1\n    requests = 1\n  }\n}\n",
			want: []string{"without quotes"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, diags := loadText(t, tt.src, Options{})
			errs := diags.Errs()
			if len(errs) != len(tt.want) {
				t.Fatalf("got %d errors, want %d: %v", len(errs), len(tt.want), errs)
			}
			for i, w := range tt.want {
				if !strings.Contains(errs[i].Error(), w) {
					t.Errorf("error %d = %q, want it to contain %q", i, errs[i], w)
				}
			}
		})
	}
}

func TestRampUpDecoded(t *testing.T) {
	s := mustLoad(t, "scenario \"s\" {\n  load {\n    concurrency = 8\n    requests = 40\n    ramp_up = \"2s\"\n  }\n  workload {\n    output_tokens = 4\n  }\n}\n", Options{})
	if got := s.Scenarios[0].Runs[0].Load.RampUp; got != 2*time.Second {
		t.Errorf("ramp_up decoded as %v, want 2s", got)
	}
}

func TestThinkTimeDecoded(t *testing.T) {
	s := mustLoad(t, "scenario \"s\" {\n  load {\n    concurrency = 2\n    requests = 6\n  }\n  workload {\n    kind = \"conversation\"\n    think_time = \"250ms\"\n  }\n}\n", Options{})
	if got := s.Scenarios[0].Runs[0].Load.Workload.ThinkTime; got != 250*time.Millisecond {
		t.Errorf("think_time decoded as %v, want 250ms", got)
	}
	// on another workload kind it is ignored, with a warning
	s, diags := loadText(t, "scenario \"s\" {\n  load {\n    concurrency = 2\n    requests = 6\n  }\n  workload {\n    think_time = \"1s\"\n  }\n}\n", Options{})
	if diags.HasErrors() || len(diags) == 0 || !strings.Contains(diags[0].Detail, "only used by kind = \"conversation\"") {
		t.Errorf("think_time on a random workload: diags %v, want one warning", diags)
	}
	if got := s.Scenarios[0].Runs[0].Load.Workload.ThinkTime; got != 0 {
		t.Errorf("think_time on a random workload decoded as %v, want 0", got)
	}
}

// Per-turn metrics are names asserts may use.
func TestTurnMetricsInAsserts(t *testing.T) {
	mustLoad(t, "scenario \"s\" {\n  load {\n    concurrency = 2\n    requests = 6\n  }\n  workload {\n    kind = \"conversation\"\n  }\n  assert \"cache helps\" {\n    condition = later_turns.ttft.p95 < first_turn.ttft.p95\n  }\n}\n", Options{})
	if got := errorsOf(t, "scenario \"s\" {\n  load {\n    concurrency = 2\n    requests = 6\n  }\n  assert \"a\" {\n    condition = first_turn.ttft.p96 < 5\n  }\n}\n"); len(got) == 0 {
		t.Error("first_turn.ttft.p96 accepted")
	}
}

func TestLengthBucketsDecoded(t *testing.T) {
	s := mustLoad(t, "scenario \"s\" {\n  load {\n    concurrency = 2\n    requests = 6\n  }\n  workload {\n    length_buckets = [512, 2048]\n  }\n}\n", Options{})
	if diff := cmp.Diff([]int{512, 2048}, s.Scenarios[0].Runs[0].Load.Workload.LengthBuckets); diff != "" {
		t.Errorf("length_buckets (-want +got):\n%s", diff)
	}
}

func TestDatasetFilter(t *testing.T) {
	ds := filepath.Join(t.TempDir(), "sharegpt.json")
	if err := os.WriteFile(ds, []byte(`[]`), 0o644); err != nil {
		t.Fatal(err)
	}
	src := func(filter string) string {
		return `simulator "sim" {}
defaults { target = simulator.sim }
scenario "a" {
  workload {
    kind           = "dataset"
    dataset        = "` + ds + `"
    dataset_filter = "` + filter + `"
  }
  load {
    concurrency = 1
    requests    = 2
  }
}
`
	}
	for filter, want := range map[string]string{"none": "", "context": runspec.DatasetFilterContext, "vllm_bench": runspec.DatasetFilterVLLMBench} {
		s := mustLoad(t, src(filter), Options{})
		if got := s.Plan().Runs()[0].Load.Workload.DatasetFilter; got != want {
			t.Errorf("dataset_filter = %q: %q, want %q", filter, got, want)
		}
	}
	errs := errorsOf(t, src("vllm-bench"))
	if len(errs) != 1 || !strings.Contains(errs[0], `Unknown dataset_filter; dataset_filter = "vllm-bench": it is one of none, context, vllm_bench`) || !strings.Contains(errs[0], `Did you mean "vllm_bench"?`) {
		t.Errorf("errors %q", errs)
	}
}
