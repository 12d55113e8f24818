package ghactiontest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Runner is a GitHub Actions step environment in a temporary directory: the
// output and step-summary files exist, and the event payload is a
// pull_request event for pull request PR of Owner/Repo.
type Runner struct {
	// Dir holds the runner files and is the workspace.
	Dir string
	// Vars are the environment variables a step sees; change them before use.
	Vars map[string]string
}

// PR is the pull request number in the event payload.
const PR = 7

// NewRunner makes the files and variables of one step.
func NewRunner(tb testing.TB) *Runner {
	tb.Helper()
	dir := tb.TempDir()
	r := &Runner{Dir: dir, Vars: map[string]string{
		"GITHUB_ACTIONS":      "true",
		"GITHUB_OUTPUT":       filepath.Join(dir, "output"),
		"GITHUB_STEP_SUMMARY": filepath.Join(dir, "summary.md"),
		"GITHUB_EVENT_NAME":   "pull_request",
		"GITHUB_EVENT_PATH":   filepath.Join(dir, "event.json"),
		"GITHUB_REPOSITORY":   Owner + "/" + Repo,
		"GITHUB_SERVER_URL":   "https://github.com",
		"GITHUB_RUN_ID":       "42",
		"GITHUB_WORKSPACE":    dir,
	}}
	for _, f := range []string{"output", "summary.md"} {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	event := fmt.Sprintf(`{"action":"synchronize","number":%d,"pull_request":{"number":%d}}`, PR, PR)
	if err := os.WriteFile(r.Vars["GITHUB_EVENT_PATH"], []byte(event), 0o644); err != nil {
		tb.Fatal(err)
	}
	return r
}

// WorkflowRun makes the step a workflow_run job triggered by a run of the
// pull_request workflow on head commit sha of repository headRepo
// ("owner/name", id repoID), with no pull request listed (as GitHub lists
// none for a fork's).
func (r *Runner) WorkflowRun(tb testing.TB, sha, headRepo string, repoID int64) {
	tb.Helper()
	event := fmt.Sprintf(`{"action":"completed","workflow_run":{"id":99,"event":"pull_request","conclusion":"success","head_sha":%q,"head_repository":{"id":%d,"full_name":%q},"pull_requests":[]}}`,
		sha, repoID, headRepo)
	if err := os.WriteFile(r.Vars["GITHUB_EVENT_PATH"], []byte(event), 0o644); err != nil {
		tb.Fatal(err)
	}
	r.Vars["GITHUB_EVENT_NAME"] = "workflow_run"
}

// Getenv reads Vars, for code that takes a getenv function.
func (r *Runner) Getenv(k string) string { return r.Vars[k] }

// Setenv sets every variable in the process environment for the test's
// duration (and unsets the tokens and GitHub variables Vars lacks, so the
// machine's own environment cannot leak in).
func (r *Runner) Setenv(t *testing.T) {
	t.Helper()
	for _, k := range []string{"GITHUB_TOKEN", "INPUT_GITHUB-TOKEN", "INPUT_GITHUB_TOKEN", "GITHUB_API_URL"} {
		if _, ok := r.Vars[k]; !ok {
			t.Setenv(k, "")
		}
	}
	for k, v := range r.Vars {
		t.Setenv(k, v)
	}
}

// Summary returns what was appended to the step summary.
func (r *Runner) Summary(tb testing.TB) string {
	tb.Helper()
	b, err := os.ReadFile(r.Vars["GITHUB_STEP_SUMMARY"])
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// Outputs parses the output file into a map as GitHub's runner does: a
// line is name=value when its first "=" comes before any "<<", else it
// opens a heredoc name<<DELIMITER that runs to the next line equal to
// DELIMITER; a later entry of a name wins.
func (r *Runner) Outputs(tb testing.TB) map[string]string {
	tb.Helper()
	b, err := os.ReadFile(r.Vars["GITHUB_OUTPUT"])
	if err != nil {
		tb.Fatal(err)
	}
	return ParseOutputs(string(b))
}

// ParseOutputs reads GITHUB_OUTPUT text the way the runner does (see Outputs).
func ParseOutputs(text string) map[string]string {
	out := map[string]string{}
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		eq, here := strings.Index(line, "="), strings.Index(line, "<<")
		switch {
		case eq >= 0 && (here < 0 || eq < here):
			out[line[:eq]] = line[eq+1:]
		case here >= 0:
			name, delim := line[:here], line[here+2:]
			var val []string
			for i++; i < len(lines) && lines[i] != delim; i++ {
				val = append(val, lines[i])
			}
			out[name] = strings.Join(val, "\n")
		}
	}
	return out
}
