package ghaction

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/internal/plan"
	"github.com/llmgate/llmgate/internal/suite"
	"go.yaml.in/yaml/v3"
)

// actionYAML is the part of action.yml these tests read.
type actionYAML struct {
	Inputs  map[string]struct{ Default string } `yaml:"inputs"`
	Outputs map[string]struct{ Value string }   `yaml:"outputs"`
	Runs    struct {
		Using string `yaml:"using"`
		Steps []struct {
			ID   string            `yaml:"id"`
			Uses string            `yaml:"uses"`
			Run  string            `yaml:"run"`
			Env  map[string]string `yaml:"env"`
		} `yaml:"steps"`
	} `yaml:"runs"`
}

func readAction(t *testing.T) actionYAML {
	t.Helper()
	b, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var a actionYAML
	if err := yaml.Unmarshal(b, &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	return a
}

func TestActionMetadata(t *testing.T) {
	a := readAction(t)
	if a.Runs.Using != "composite" {
		t.Errorf("runs.using = %q, want composite", a.Runs.Using)
	}
	for _, in := range []string{"suite", "baseline", "args", "comment", "github-token", "fail-on", "report-url", "version"} {
		if _, ok := a.Inputs[in]; !ok {
			t.Errorf("input %q missing", in)
		}
	}
	if got := a.Inputs["github-token"].Default; got != "${{ github.token }}" {
		t.Errorf("github-token default = %q", got)
	}
	// Every output the gate sets is passed through, from the gate step.
	for _, out := range []string{"verdict", "regressions", "failed-asserts", "results-path", "summary-path"} {
		if got, want := a.Outputs[out].Value, "${{ steps.gate.outputs."+out+" }}"; got != want {
			t.Errorf("output %s = %q, want %q", out, got, want)
		}
	}
	// No other action inside: users may not be able to fetch one.
	for _, st := range a.Runs.Steps {
		if st.Uses != "" {
			t.Errorf("step %q uses %q; the action must not depend on other actions", st.ID, st.Uses)
		}
	}
}

func TestActionGateStepPassesArgs(t *testing.T) {
	// Run the action's gate step with bash and a stand-in llmgate that prints
	// its arguments: inputs become flags, args is split like a shell would
	// and nothing in it is expanded or executed.
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not installed")
	}
	script := gateScript(t)
	dir := t.TempDir()
	fake := filepath.Join(dir, "llmgate")
	if err := os.WriteFile(fake, []byte("#!/usr/bin/env bash\nfor a in \"$@\"; do printf '[%s]\\n' \"$a\"; done\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	pwned := filepath.Join(dir, "pwned")
	tests := []struct {
		name string
		env  map[string]string
		want []string
	}{
		// the defaults: the suite and the comment switch only
		{name: "defaults", env: map[string]string{"LLMGATE_COMMENT": "true"},
			want: []string{"gate", "perf/gate.hcl", "--comment=true"}},
		// every input, with quotes in args and a command substitution that must stay text
		{name: "all inputs", env: map[string]string{"LLMGATE_COMMENT": "false", "LLMGATE_BASELINE": "perf/base line.json", "LLMGATE_FAIL_ON": "inconclusive",
			"LLMGATE_REPORT_URL": "https://github.com/o/r/actions/runs/1/artifacts/2",
			"LLMGATE_ARGS":       `--var "image=vllm/vllm-openai:v0.11.0" --only 'chat x' $(touch ` + pwned + `)`},
			want: []string{"gate", "perf/gate.hcl", "--comment=false", "--baseline", "perf/base line.json", "--fail-on", "inconclusive",
				"--report-url", "https://github.com/o/r/actions/runs/1/artifacts/2", "--var", "image=vllm/vllm-openai:v0.11.0", "--only", "chat x", "$(touch", pwned + ")"}},
		// an A/B in one job: main's image against the PR's, no baseline input
		{name: "A/B in one job", env: map[string]string{"LLMGATE_COMMENT": "true",
			"LLMGATE_ARGS": `--ab-var image=ghcr.io/o/vllm:main --var image=ghcr.io/o/vllm:pr-12 --ab-var "args=--max-num-seqs 64"`},
			want: []string{"gate", "perf/gate.hcl", "--comment=true", "--ab-var", "image=ghcr.io/o/vllm:main", "--var", "image=ghcr.io/o/vllm:pr-12", "--ab-var", "args=--max-num-seqs 64"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command("bash", "-c", script)
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "LLMGATE_BIN=" + fake, "LLMGATE_SUITE=perf/gate.hcl"}
			for k, v := range tt.env {
				cmd.Env = append(cmd.Env, k+"="+v)
			}
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			var got []string
			for _, line := range strings.Split(string(out), "\n") {
				if strings.HasPrefix(line, "[") {
					got = append(got, strings.TrimSuffix(strings.TrimPrefix(line, "["), "]"))
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("llmgate got\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
	if _, err := os.Stat(pwned); err == nil {
		t.Error("a command substitution in args was executed")
	}
}

func TestActionGateStepRejectsUnmatchedQuote(t *testing.T) {
	// An args input with an unmatched quote is a clear error (exit 2), not a silent misparse.
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not installed")
	}
	script := gateScript(t)
	cmd := exec.Command("bash", "-c", script)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "LLMGATE_BIN=/bin/false", "LLMGATE_SUITE=s.hcl", `LLMGATE_ARGS=--var "x=1`}
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "::error title=llmgate::cannot split the args input") {
		t.Errorf("err = %v, output:\n%s\nwant exit 2 and an error annotation", err, out)
	}
}

func TestSelfTestSuiteLoads(t *testing.T) {
	// The suite .github/workflows/selftest.yml gates (and .ci/act-selftest.sh checks) must stay valid.
	s, diags := suite.Load("testdata/selftest.hcl", suite.Options{Vars: map[string]string{"slowdown": "3"}, Getenv: func(string) string { return "" }})
	if diags.HasErrors() {
		t.Fatalf("selftest.hcl: %v", diags)
	}
	if s.Gate == nil || !slices.ContainsFunc(s.Gate.Tolerances, func(tol plan.Tolerance) bool { return tol.Metric == "e2el.p95" }) {
		t.Error("selftest.hcl has no e2el.p95 tolerance; the act self-test looks for its annotation")
	}
	b, err := os.ReadFile("../../.github/workflows/selftest.yml")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "SUITE: internal/ghaction/testdata/selftest.hcl") {
		t.Error("selftest.yml no longer gates internal/ghaction/testdata/selftest.hcl")
	}
}

// gateScript returns the bash script of the action's step with id gate.
func gateScript(t *testing.T) string {
	t.Helper()
	for _, st := range readAction(t).Runs.Steps {
		if st.ID == "gate" {
			return st.Run
		}
	}
	t.Fatal("action.yml has no step with id gate")
	return ""
}
