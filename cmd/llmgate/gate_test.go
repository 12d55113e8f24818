package main

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/internal/comparetest"
	"github.com/llmgate/llmgate/internal/ghactiontest"
	"github.com/llmgate/llmgate/internal/sim"
	"github.com/llmgate/llmgate/results"
)

const gateSuite = "testdata/gate/gate.hcl"

// gateCLI runs `llmgate args...` and returns the exit code and both outputs.
func gateCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), args, &stdout, &stderr)
	return exitCode(err, &stderr), stdout.String(), stderr.String()
}

// gateSim serves an in-process simulator on loopback, slowed down by slowdown.
func gateSim(t *testing.T, slowdown float64) string {
	t.Helper()
	s, err := sim.New(sim.Config{Profile: "tiny", Seed: 1, Slowdown: slowdown})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(func() { srv.Close(); s.Close() })
	return srv.URL
}

// gateNotActions clears the GitHub Actions environment for a test.
func gateNotActions(t *testing.T) {
	for _, k := range []string{"GITHUB_ACTIONS", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_EVENT_NAME", "GITHUB_TOKEN"} {
		t.Setenv(k, "")
	}
}

// gateBaseline records a baseline of the gate suite against the simulator at url.
func gateBaseline(t *testing.T, url string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "baseline.json")
	if code, stdout, stderr := gateCLI(t, "run", gateSuite, "--target", url, "-o", path); code != exitPass {
		t.Fatalf("recording the baseline: exit %d\n%s\n%s", code, stdout, stderr)
	}
	return path
}

func TestGateUsage(t *testing.T) {
	gateNotActions(t)
	dir := t.TempDir()
	corrupt := filepath.Join(dir, "corrupt.json")
	if err := os.WriteFile(corrupt, []byte(`{"version": "1.0", "runs": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "results.json")
	otherSuite := filepath.Join(dir, "other.json")
	other := comparetest.File(results.Environment{}, comparetest.RunSpec{Name: "chat", TTFT: 100, TPOT: 9, E2EL: 2000, OutTokPerSec: 1000, ReqPerSec: 4})
	other.Suite.Name = "another-suite"
	if err := results.WriteFile(otherSuite, other); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		args   []string
		stderr string
	}{
		// the suite is required
		{name: "no suite", args: []string{"gate"}, stderr: "gate takes one suite file, got 0"},
		// only one suite per gate
		{name: "two suites", args: []string{"gate", gateSuite, gateSuite}, stderr: "got 2 arguments"},
		// --fail-on knows one value
		{name: "bad fail-on", args: []string{"gate", gateSuite, "--fail-on", "sometimes"}, stderr: `--fail-on "sometimes": want inconclusive`},
		// --var needs NAME=VALUE
		{name: "bad var", args: []string{"gate", gateSuite, "--var", "novalue"}, stderr: `--var "novalue": want NAME=VALUE`},
		// --target must be a base URL
		{name: "bad target", args: []string{"gate", gateSuite, "--target", "localhost"}, stderr: "want a server's base URL"},
		// an invalid suite prints its diagnostics with file:line
		{name: "invalid suite", args: []string{"gate", "testdata/gate/invalid.hcl"}, stderr: "invalid.hcl:9:17: Error: Unknown metric"},
		// an unreadable baseline is refused before any run
		{name: "corrupt baseline", args: []string{"gate", gateSuite, "--baseline", corrupt, "-o", out}, stderr: "baseline " + corrupt},
		// an explicit --baseline that does not exist is a typo, not a first run
		{name: "missing explicit baseline", args: []string{"gate", gateSuite, "--baseline", filepath.Join(dir, "nope.json"), "-o", out}, stderr: "nope.json does not exist"},
		// a baseline of another suite is refused before any run
		{name: "other suite's baseline", args: []string{"gate", gateSuite, "--baseline", otherSuite, "-o", out}, stderr: "--allow-different-baseline"},
		// an unknown --only is a usage error, before any run
		{name: "unknown only", args: []string{"gate", gateSuite, "--only", "nope", "-o", out}, stderr: "nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := gateCLI(t, tt.args...)
			if code != exitUsage {
				t.Errorf("exit %d, want 2", code)
			}
			if !strings.Contains(stderr, tt.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderr, stderr)
			}
		})
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a usage error still ran the suite: %s exists", out)
	}
}

func TestGateInvalidSuiteUnderActions(t *testing.T) {
	// A broken suite fails the step with an annotation at its line and verdict=error.
	r := ghactiontest.NewRunner(t)
	r.Setenv(t)
	code, stdout, _ := gateCLI(t, "gate", "testdata/gate/invalid.hcl")
	if code != exitUsage {
		t.Fatalf("exit %d, want 2", code)
	}
	if !strings.Contains(stdout, "::error col=17,file=") || !strings.Contains(stdout, "invalid.hcl,line=9,title=invalid suite%3A Unknown metric::") {
		t.Errorf("no annotation at invalid.hcl:9:17:\n%s", stdout)
	}
	if got := r.Outputs(t)["verdict"]; got != "error" {
		t.Errorf("verdict output = %q, want error", got)
	}
	if sum := r.Summary(t); !strings.Contains(sum, "invalid suite") || !strings.Contains(sum, "invalid.hcl:9:17`: **Unknown metric**") {
		t.Errorf("step summary does not name the error at invalid.hcl:9:17:\n%s", sum)
	}
}

func TestGateNoBaselineJudgesAsserts(t *testing.T) {
	// The suite's gate.baseline does not exist: asserts only, with a notice; the assert fails the gate.
	gateNotActions(t)
	url := gateSim(t, 1)
	dir := t.TempDir()
	md := filepath.Join(dir, "report.md")
	code, stdout, stderr := gateCLI(t, "gate", gateSuite, "--target", url, "-o", filepath.Join(dir, "r.json"), "--markdown", md)
	if code != exitPass {
		t.Fatalf("exit %d, want 0\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "no baseline: testdata/gate/baseline.json does not exist yet") {
		t.Errorf("stderr lacks the no-baseline notice:\n%s", stderr)
	}
	if !strings.Contains(stdout, "llmgate: gate PASS") {
		t.Errorf("stdout lacks the verdict line:\n%s", stdout)
	}
	b, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), "### llmgate · cli-gate") || !strings.Contains(string(b), "> no baseline:") {
		t.Errorf("markdown lacks the heading or the notice:\n%s", b)
	}

	code, stdout, stderr = gateCLI(t, "gate", gateSuite, "--target", url, "-o", filepath.Join(dir, "r.json"), "--var", "ttft_limit=0")
	if code != exitGate {
		t.Fatalf("failing assert: exit %d, want 1\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, `gate.hcl:37:21: assert "fast_enough" failed in chat: P95 TTFT must stay under the limit`) {
		t.Errorf("stderr does not place the failed assert:\n%s", stderr)
	}
}

func TestGatePassThenRegressionUnderActions(t *testing.T) {
	fullRunOnly(t)
	// The full gate under a fake Actions runner and a fake GitHub: a pass
	// creates the PR comment; a planted 3x slowdown fails the gate, is
	// annotated, and updates that same comment.
	gateNotActions(t)
	base := gateBaseline(t, gateSim(t, 1))
	gh := ghactiontest.NewGitHub(t, "")

	r := ghactiontest.NewRunner(t)
	r.Vars["GITHUB_API_URL"] = gh.APIURL()
	r.Vars["GITHUB_TOKEN"] = ghactiontest.Token
	r.Setenv(t)
	out := filepath.Join(r.Dir, "results.json")
	code, stdout, stderr := gateCLI(t, "gate", gateSuite, "--baseline", base, "--target", gateSim(t, 1), "-o", out)
	if code != exitPass {
		t.Fatalf("same server: exit %d, want 0\n%s\n%s", code, stdout, stderr)
	}
	o := r.Outputs(t)
	if v := o["verdict"]; v != "pass" && v != "inconclusive" {
		t.Errorf("verdict = %q, want pass (or inconclusive on a very noisy machine)", v)
	}
	if o["regressions"] != "0" || o["failed-asserts"] != "0" || o["results-path"] != out || o["summary-path"] != filepath.Join(r.Dir, "results.md") {
		t.Errorf("outputs = %v", o)
	}
	if sum := r.Summary(t); !strings.HasPrefix(sum, "### llmgate · cli-gate: ✅") {
		t.Errorf("step summary does not start with the passing verdict:\n%s", sum)
	}
	cms := gh.Comments(ghactiontest.PR)
	if len(cms) != 1 || !strings.HasPrefix(cms[0].Body, "<!-- llmgate:cli-gate -->\n### llmgate · cli-gate: ✅") {
		t.Fatalf("PR comments = %+v, want one with the marker and the verdict", cms)
	}
	if !strings.Contains(stdout, "Pull-request comment created: https://github.com/octo/gate/pull/7#issuecomment-") {
		t.Errorf("stdout does not say the comment was created:\n%s", stdout)
	}

	// The same PR, next push: the server got 3x slower.
	r2 := ghactiontest.NewRunner(t)
	r2.Vars["GITHUB_API_URL"] = gh.APIURL()
	r2.Vars["GITHUB_TOKEN"] = ghactiontest.Token
	r2.Setenv(t)
	code, stdout, stderr = gateCLI(t, "gate", gateSuite, "--baseline", base, "--target", gateSim(t, 3), "-o", filepath.Join(r2.Dir, "results.json"))
	if code != exitGate {
		t.Fatalf("3x slower: exit %d, want 1\n%s\n%s", code, stdout, stderr)
	}
	o = r2.Outputs(t)
	if n, _ := strconv.Atoi(o["regressions"]); o["verdict"] != "fail" || n < 1 {
		t.Errorf("outputs = %v, want verdict fail with regressions", o)
	}
	if !strings.Contains(stdout, "::error col=3,file=") || !strings.Contains(stdout, "title=regression%3A e2el.p95 in chat::e2el.p95 went from") {
		t.Errorf("no regression annotation on the tolerance block:\n%s", stdout)
	}
	if !strings.Contains(stderr, "gate failed: ") {
		t.Errorf("stderr lacks the failure line:\n%s", stderr)
	}
	if sum := r2.Summary(t); !strings.HasPrefix(sum, "### llmgate · cli-gate: ❌") {
		t.Errorf("step summary does not start with the failing verdict:\n%s", sum)
	}
	cms = gh.Comments(ghactiontest.PR)
	if len(cms) != 1 || !strings.Contains(cms[0].Body, "❌") || !strings.Contains(cms[0].Body, "e2el.p95") {
		t.Errorf("PR comments = %+v, want the one comment updated with the regression", cms)
	}
	f, err := results.ReadFile(filepath.Join(r2.Dir, "results.json"))
	if err != nil || len(f.Runs) != 1 {
		t.Errorf("results file: %v, %+v", err, f)
	}
}

func TestGateForkPRKeepsVerdict(t *testing.T) {
	// A read-only token (fork PR): no comment, a warning and a notice in the summary; the exit code is the gate's own.
	gateNotActions(t)
	gh := ghactiontest.NewGitHub(t, "")
	gh.SetReadOnly(true)
	r := ghactiontest.NewRunner(t)
	r.Vars["GITHUB_API_URL"] = gh.APIURL()
	r.Vars["INPUT_GITHUB-TOKEN"] = ghactiontest.Token
	r.Setenv(t)
	code, stdout, stderr := gateCLI(t, "gate", gateSuite, "--target", gateSim(t, 1), "-o", filepath.Join(r.Dir, "results.json"))
	if code != exitPass {
		t.Fatalf("exit %d, want 0\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "::warning title=llmgate%3A PR comment not posted::") {
		t.Errorf("no warning annotation:\n%s", stdout)
	}
	if sum := r.Summary(t); !strings.Contains(sum, "could not post its pull-request comment for `cli-gate`") {
		t.Errorf("step summary lacks the fallback notice:\n%s", sum)
	}
	if len(gh.Comments(ghactiontest.PR)) != 0 {
		t.Error("a comment was stored with a read-only token")
	}
}

func TestGateCommentFalse(t *testing.T) {
	// --comment=false: no request reaches GitHub at all.
	gateNotActions(t)
	gh := ghactiontest.NewGitHub(t, "")
	r := ghactiontest.NewRunner(t)
	r.Vars["GITHUB_API_URL"] = gh.APIURL()
	r.Vars["GITHUB_TOKEN"] = ghactiontest.Token
	r.Setenv(t)
	code, stdout, stderr := gateCLI(t, "gate", gateSuite, "--target", gateSim(t, 1), "-o", filepath.Join(r.Dir, "results.json"), "--comment=false")
	if code != exitPass {
		t.Fatalf("exit %d, want 0\n%s\n%s", code, stdout, stderr)
	}
	if reqs := gh.Requests(); len(reqs) != 0 {
		t.Errorf("requests to GitHub with --comment=false: %v", reqs)
	}
}

func TestGateUnreachableTarget(t *testing.T) {
	// Nothing listens: exit 3, verdict error, and the markdown says the gate could not judge.
	gateNotActions(t)
	r := ghactiontest.NewRunner(t)
	r.Vars["GITHUB_EVENT_NAME"] = "push"
	r.Setenv(t)
	code, stdout, stderr := gateCLI(t, "gate", gateSuite, "--target", "http://127.0.0.1:1", "-o", filepath.Join(r.Dir, "results.json"))
	if code != exitInfra {
		t.Fatalf("exit %d, want 3\n%s\n%s", code, stdout, stderr)
	}
	if got := r.Outputs(t)["verdict"]; got != "error" {
		t.Errorf("verdict = %q, want error", got)
	}
	if sum := r.Summary(t); !strings.Contains(sum, "The gate could not judge this change") || !strings.Contains(sum, "127.0.0.1:1") {
		t.Errorf("summary does not explain:\n%s", sum)
	}
}
