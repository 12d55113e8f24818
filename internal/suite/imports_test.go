package suite

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/llmgate/llmgate/"

// Groups of dependencies the layering table forbids.
var (
	// hclDeps is the HCL parser and its value library: only suite (and the
	// CLI, through it) may link them; the plan and the runner that runs it
	// are plain data and code.
	hclDeps = []string{"github.com/hashicorp/hcl/", "github.com/zclconf/go-cty/"}
	// containerDeps are the container libraries target links.
	containerDeps = []string{"github.com/testcontainers/", "github.com/docker/", "github.com/moby/"}
	// engines are the network and runtime packages: what runs a plan.
	engines = []string{module + "internal/load", module + "internal/backend", module + "internal/sim", module + "internal/runner"}
	// downstream are the packages that judge and publish a results file:
	// they take plain data and must not parse a suite or run one.
	downstream = slices.Concat(hclDeps, containerDeps, engines, []string{module + "internal/suite"})
	// promDeps are the Prometheus libraries that parse a /metrics page:
	// telemetry links them, the results file format does not.
	promDeps = []string{"github.com/prometheus/"}
)

// layer is what one package may depend on, directly or not.
type layer struct {
	// forbidden are import paths (a trailing / makes one a prefix of paths)
	// the package must not depend on.
	forbidden []string
	// stdlib allows the standard library only, and of llmgate only the
	// packages in llmgate (stdlib-only helpers under internal/).
	stdlib bool
	// llmgate, when set, are the only llmgate packages it may depend on
	// (nil with noLLMGate false: any not forbidden).
	llmgate   []string
	noLLMGate bool
	// why is said when the rule is broken.
	why string
}

// layering holds every package of the module: a new package fails the test
// until it is given its place here.
var layering = map[string]layer{
	"internal/capacity":            {forbidden: downstream, why: "it decides a capacity search from probe results"},
	"internal/changepoint":         {noLLMGate: true, why: "it works on a plain series of numbers and knows nothing of llmgate's files"},
	"cmd/llmgate":                  {why: "the CLI wires everything"},
	"internal/compare":             {forbidden: append(slices.Clone(downstream), module+"internal/report"), why: "it judges plain data (compare.Config, results files) and never formats"},
	"internal/comparetest":         {forbidden: downstream, why: "it builds comparisons for tests of the downstream packages"},
	"internal/dataset":             {stdlib: true, llmgate: []string{"internal/linefile"}, why: "it reads prompt files for suite and load alike"},
	"internal/diagnose":            {forbidden: downstream, why: "it reads results files"},
	"docs":                         {noLLMGate: true, why: "its tests build the binary; the package itself is documentation"},
	"internal/ghaction":            {forbidden: downstream, why: "it publishes what report rendered, from plain diagnostics and sources"},
	"internal/ghactiontest":        {noLLMGate: true, why: "it is a stand-in for GitHub's API"},
	"internal/history":             {forbidden: append(slices.Clone(downstream), module+"internal/report"), why: "it stores results files and finds change points"},
	"internal/history/historytest": {noLLMGate: true, why: "it is a test store"},
	"internal/boundedget":          {stdlib: true, why: "load, serverinfo and backend read a server's answers through it"},
	"internal/words":               {stdlib: true, why: "report and progress count things in one way"},
	"internal/cmd/nvidia-smi":      {llmgate: []string{"untrusted", "results", "internal/telemetry"}, forbidden: slices.Concat(hclDeps, containerDeps), why: "the simulator image's nvidia-smi stand-in is a small binary of its own"},
	"internal/fakeserver":          {noLLMGate: true, forbidden: containerDeps, why: "it is a test server that stands alone"},
	"internal/golden":              {noLLMGate: true, why: "it compares files"},
	"internal/hostile":             {noLLMGate: true, forbidden: containerDeps, why: "it is a test server that stands alone"},
	"internal/linefile":            {stdlib: true, why: "trace and dataset, which are standard library only, use it"},
	"internal/telemetry":           {llmgate: []string{"untrusted", "results"}, forbidden: slices.Concat(hclDeps, containerDeps), why: "it reads a server's /metrics and the GPUs' readings into the results file's types"},
	"internal/testprobe":           {noLLMGate: true, why: "it only asks whether Docker and chromium are there"},
	"internal/judge":               {forbidden: append(slices.Clone(downstream), module+"internal/report"), why: "it judges a pair of results files from plain data; it runs nothing and formats nothing"},
	"internal/load":                {forbidden: slices.Concat(hclDeps, containerDeps, []string{module + "internal/suite", module + "internal/backend", module + "internal/sim", module + "internal/runner"}), why: "it drives one run from a load.Config"},
	"internal/progress":            {forbidden: downstream, why: "it renders the runner's events (progress/event) without linking the runner"},
	"internal/progress/event":      {forbidden: downstream, why: "it is the leaf both the runner and the renderer import"},
	"internal/report":              {forbidden: downstream, why: "it renders what was measured and decided, from plain data"},
	"results":                      {llmgate: []string{"untrusted"}, forbidden: slices.Concat(hclDeps, containerDeps, promDeps), why: "it is the results file format: what a file holds, not how a server's pages are read (internal/telemetry)"},
	"internal/plan":                {forbidden: slices.Concat(hclDeps, containerDeps, engines, []string{module + "internal/suite"}), why: "it is the plain data a suite expands to, which the runner runs: what was HCL is a function made at load time"},
	"internal/runner":              {forbidden: slices.Concat(hclDeps, []string{module + "internal/suite"}), why: "it sequences the plan, which is plain data: it evaluates no HCL"},
	"runspec":                      {stdlib: true, why: "it is plain data a suite plans and the engines run"},
	"scenarios":                    {noLLMGate: true, why: "it only embeds the catalog's suites"},
	"internal/serverinfo":          {forbidden: downstream, why: "it asks a server what it supports"},
	"internal/sim":                 {noLLMGate: true, forbidden: slices.Concat(hclDeps, containerDeps), why: "the simulator stands alone (it ships as its own image)"},
	"internal/suite":               {forbidden: slices.Concat(engines, containerDeps, []string{module + "internal/report", module + "internal/ghaction", module + "internal/history", module + "internal/progress"}), why: "parsing a suite must link no network or runtime code, and nothing that renders or publishes"},
	"internal/backend":             {forbidden: slices.Concat(hclDeps, []string{module + "internal/suite", module + "internal/load", module + "internal/runner"}), why: "it starts a server from a runspec.Target"},
	"internal/trace":               {stdlib: true, llmgate: []string{"internal/linefile"}, why: "suite (validate, --plan) and load (the replay) read a trace alike"},
	"untrusted":                    {stdlib: true, why: "every sink uses it"},
}

// TestLayering checks every package of the module against the layering
// table, with go list's transitive dependencies: what parses a suite links
// no engine; what judges, renders and publishes links neither HCL, a suite,
// the runner nor a container library; the plan and the runner link no HCL
// (the suite compiles what they need of it at load time); plain data imports
// the standard library only.
func TestLayering(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, module+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	listed := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], module)
		listed[pkg] = true
		l, ok := layering[pkg]
		if !ok {
			t.Errorf("package %s has no place in the layering table (internal/suite/imports_test.go): say what it may depend on", pkg)
			continue
		}
		broken := map[string][]string{} // the deps that break each rule
		var rules []string
		for _, dep := range fields[1:] {
			if why := l.breaks(dep); why != "" {
				if broken[why] == nil {
					rules = append(rules, why)
				}
				broken[why] = append(broken[why], dep)
			}
		}
		for _, why := range rules {
			deps := broken[why]
			t.Errorf("%s depends on %s (%d such packages): %s; %s", pkg, deps[0], len(deps), why, l.why)
		}
	}
	for pkg := range layering {
		if !listed[pkg] {
			t.Errorf("the layering table names %s, which go list does not list", pkg)
		}
	}
}

// breaks says which rule of l dep breaks; "" when none.
func (l layer) breaks(dep string) string {
	for _, bad := range l.forbidden {
		if dep == bad || strings.HasPrefix(dep, bad+"/") || strings.HasSuffix(bad, "/") && strings.HasPrefix(dep, bad) {
			return "it must not depend on " + strings.TrimSuffix(bad, "/")
		}
	}
	own, isOwn := strings.CutPrefix(dep, module)
	switch {
	case isOwn && (l.noLLMGate || l.llmgate != nil || l.stdlib) && !slices.Contains(l.llmgate, own):
		if l.noLLMGate || len(l.llmgate) == 0 {
			return "it imports nothing else of llmgate"
		}
		return "of llmgate it may import only " + strings.Join(l.llmgate, ", ")
	case !isOwn && l.stdlib && strings.Contains(strings.Split(dep, "/")[0], "."):
		return "it imports the standard library only"
	}
	return ""
}

// TestLayeringRules checks the table's rules themselves, on made-up
// dependencies, so that a rule that can never fire is caught.
func TestLayeringRules(t *testing.T) {
	for _, tc := range []struct {
		pkg, dep string
		broken   bool
	}{
		{"internal/compare", "github.com/hashicorp/hcl/v2", true},
		{"internal/compare", "github.com/zclconf/go-cty/cty", true},
		{"internal/compare", module + "internal/suite", true},
		{"internal/compare", module + "internal/report", true},
		{"internal/judge", module + "internal/suite", true},
		{"internal/judge", module + "internal/compare", false},
		{"internal/compare", module + "results", false},
		{"internal/compare", "github.com/aclements/go-moremath/stats", false},
		{"internal/progress", "github.com/testcontainers/testcontainers-go", true},
		{"internal/progress", module + "internal/runner", true},
		{"internal/progress", module + "internal/progress/event", false},
		{"runspec", "strings", false},
		{"runspec", "github.com/google/go-cmp/cmp", true},
		{"runspec", module + "results", true},
		{"internal/trace", module + "internal/linefile", false},
		{"internal/trace", module + "results", true},
		{"internal/sim", module + "results", true},
		{"internal/sim", "github.com/prometheus/common/expfmt", false},
		{"results", module + "untrusted", false},
		{"results", module + "internal/compare", true},
		{"results", "github.com/prometheus/common/expfmt", true},
		{"results", "github.com/prometheus/client_model/go", true},
		{"internal/telemetry", "github.com/prometheus/common/expfmt", false},
		{"internal/telemetry", module + "results", false},
		{"internal/telemetry", module + "internal/load", true},
		{"internal/suite", module + "internal/load", true},
		{"internal/suite", module + "internal/loadtest", false},
		{"internal/suite", "github.com/docker/go-units", true},
		{"cmd/llmgate", module + "internal/runner", false},
		{"cmd/llmgate", "github.com/hashicorp/hcl/v2", false},
		{"internal/plan", "github.com/hashicorp/hcl/v2/hclsyntax", true},
		{"internal/plan", "github.com/zclconf/go-cty/cty/function", true},
		{"internal/plan", module + "internal/suite", true},
		{"internal/plan", module + "internal/runner", true},
		{"internal/plan", module + "internal/compare", false},
		{"internal/plan", module + "internal/trace", false},
		{"internal/runner", "github.com/hashicorp/hcl/v2", true},
		{"internal/runner", "github.com/zclconf/go-cty/cty", true},
		{"internal/runner", module + "internal/suite", true},
		{"internal/runner", module + "internal/plan", false},
		{"internal/runner", module + "internal/backend", false},
	} {
		if got := layering[tc.pkg].breaks(tc.dep) != ""; got != tc.broken {
			t.Errorf("%s depending on %s: broken %v, want %v", tc.pkg, tc.dep, got, tc.broken)
		}
	}
}
