package ghaction

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fakeLLMGate is a stand-in llmgate that prints its arguments one per line,
// creates the file after -o, and exits with $FAKE_RC.
const fakeLLMGate = `#!/usr/bin/env bash
prev=""
for a in "$@"; do
  printf '[%s]\n' "$a"
  if [ "$prev" = "-o" ]; then : > "$a"; fi
  prev="$a"
done
exit "${FAKE_RC:-0}"
`

// runGateStep runs the action's gate step in dir with env, returning the
// llmgate arguments, the step's output and its exit code.
func runGateStep(t *testing.T, dir string, env map[string]string) (args []string, out string, code int) {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not installed")
	}
	fake := filepath.Join(t.TempDir(), "llmgate")
	if err := os.WriteFile(fake, []byte(fakeLLMGate), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "-c", gateScript(t))
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "LLMGATE_BIN=" + fake, "LLMGATE_SUITE=perf/gate.hcl",
		"GITHUB_OUTPUT=" + filepath.Join(dir, "github-output")}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	b, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "[") {
			args = append(args, strings.TrimSuffix(strings.TrimPrefix(line, "["), "]"))
		}
	}
	return args, string(b), code
}

func TestActionShardRunsOneShard(t *testing.T) {
	for _, tt := range []struct {
		name     string
		rc       string
		wantCode int
	}{
		{"passes", "0", 0},
		{"failed asserts are the gate job's to judge", "1", 0},
		{"a server that did not start fails the step", "3", 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			args, out, code := runGateStep(t, dir, map[string]string{"LLMGATE_SHARD": "2/3", "FAKE_RC": tt.rc,
				"LLMGATE_COMMENT": "true", "LLMGATE_ARGS": "--var image=x"})
			want := []string{"run", "perf/gate.hcl", "--shard", "2/3", "-o", "llmgate-shard-2-of-3.json", "--var", "image=x"}
			if !slices.Equal(args, want) {
				t.Errorf("llmgate got %q, want %q", args, want)
			}
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d\n%s", code, tt.wantCode, out)
			}
			got, err := os.ReadFile(filepath.Join(dir, "github-output"))
			if err != nil || string(got) != "results-path=llmgate-shard-2-of-3.json\n" {
				t.Errorf("GITHUB_OUTPUT = %q, %v", got, err)
			}
			if tt.rc == "1" && !strings.Contains(out, "::notice title=llmgate::asserts failed in shard 2/3") {
				t.Errorf("no notice for the failed asserts:\n%s", out)
			}
		})
	}
}

func TestActionResultsGatesGivenFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "shards"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"shards/llmgate-shard-1-of-2.json", "shards/llmgate-shard-2-of-2.json"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	args, out, code := runGateStep(t, dir, map[string]string{"LLMGATE_COMMENT": "true",
		"LLMGATE_RESULTS": "shards/*.json\nextra.json"})
	want := []string{"gate", "perf/gate.hcl", "--comment=true",
		"--results", "shards/llmgate-shard-1-of-2.json", "--results", "shards/llmgate-shard-2-of-2.json", "--results", "extra.json"}
	if code != 0 || !slices.Equal(args, want) {
		t.Errorf("exit %d, llmgate got %q, want %q\n%s", code, args, want, out)
	}

	_, out, code = runGateStep(t, dir, map[string]string{"LLMGATE_SHARD": "1/2", "LLMGATE_RESULTS": "a.json"})
	if code != 2 || !strings.Contains(out, "give one of them") {
		t.Errorf("shard and results together: exit %d\n%s", code, out)
	}
}

func TestActionHasShardInputs(t *testing.T) {
	a := readAction(t)
	for _, in := range []string{"shard", "shard-output", "results"} {
		if _, ok := a.Inputs[in]; !ok {
			t.Errorf("input %q missing", in)
		}
	}
}
