package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/internal/ghactiontest"
)

func TestCommentCommand(t *testing.T) {
	// The workflow_run half of the fork-PR pattern: post, then update, the suite's comment.
	gh := ghactiontest.NewGitHub(t, "")
	t.Setenv("GITHUB_API_URL", gh.APIURL())
	t.Setenv("GITHUB_TOKEN", ghactiontest.Token)
	t.Setenv("GITHUB_REPOSITORY", "octo/gate")
	t.Setenv("INPUT_GITHUB-TOKEN", "")
	t.Setenv("GITHUB_EVENT_NAME", "") // run by hand: no triggering run to check against
	report := filepath.Join(t.TempDir(), "report.md")
	if err := os.WriteFile(report, []byte("### llmgate · s: ✅ no regression in 4 metrics\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := gateCLI(t, "comment", report, "--suite", "s", "--pr", "12")
	if code != exitPass || !strings.Contains(stdout, "Comment created: https://github.com/octo/gate/pull/12#issuecomment-") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	code, stdout, _ = gateCLI(t, "comment", report, "--suite", "s", "--pr", "12")
	if code != exitPass || !strings.Contains(stdout, "Comment updated") || len(gh.Comments(12)) != 1 {
		t.Errorf("second post: exit %d, %s, %d comments; want the one comment updated", code, stdout, len(gh.Comments(12)))
	}
	if got := gh.Comments(12)[0].Body; got != "<!-- llmgate:s -->\n### llmgate · s: ✅ no regression in 4 metrics\n" {
		t.Errorf("body = %q", got)
	}

	gh.SetReadOnly(true)
	code, _, stderr = gateCLI(t, "comment", report, "--suite", "s", "--pr", "12")
	if code != exitInfra || !strings.Contains(stderr, "403") || !strings.Contains(stderr, "pull-requests: write") {
		t.Errorf("read-only token: exit %d, stderr %s; want 3 and an explanation", code, stderr)
	}
}

func TestCommentCommandUsage(t *testing.T) {
	t.Setenv("GITHUB_REPOSITORY", "octo/gate")
	t.Setenv("GITHUB_TOKEN", "t")
	tests := []struct {
		name   string
		args   []string
		stderr string
	}{
		// the PR number is required
		{name: "no pr", args: []string{"comment", "r.md", "--suite", "s"}, stderr: "--pr"},
		// the suite name is required: it finds the comment
		{name: "no suite", args: []string{"comment", "r.md", "--pr", "3"}, stderr: "--suite"},
		// one report file
		{name: "no file", args: []string{"comment", "--suite", "s", "--pr", "3"}, stderr: "one markdown report file"},
		// a missing file is named
		{name: "missing file", args: []string{"comment", "nope.md", "--suite", "s", "--pr", "3"}, stderr: "nope.md"},
		// decimal digits only: flag.Int read all of these as 42
		{name: "hex pr", args: []string{"comment", "r.md", "--suite", "s", "--pr", "0x2a"}, stderr: "decimal digits"},
		{name: "octal pr", args: []string{"comment", "r.md", "--suite", "s", "--pr", "052"}, stderr: "decimal digits"},
		{name: "binary pr", args: []string{"comment", "r.md", "--suite", "s", "--pr", "0b101010"}, stderr: "decimal digits"},
		{name: "underscore pr", args: []string{"comment", "r.md", "--suite", "s", "--pr", "4_2"}, stderr: "decimal digits"},
		{name: "signed pr", args: []string{"comment", "r.md", "--suite", "s", "--pr", "+42"}, stderr: "decimal digits"},
		{name: "pr with a newline", args: []string{"comment", "r.md", "--suite", "s", "--pr", "42\n"}, stderr: "decimal digits"},
		{name: "huge pr", args: []string{"comment", "r.md", "--suite", "s", "--pr", "99999999999"}, stderr: "decimal digits"},
		// the repository must be owner/name
		{name: "bad repo", args: []string{"comment", "r.md", "--suite", "s", "--pr", "3", "--repo", "x"}, stderr: "want owner/name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := gateCLI(t, tt.args...)
			if code != exitUsage || !strings.Contains(stderr, tt.stderr) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tt.stderr)
			}
		})
	}
}

// forkGitHub is the fork workflow's world: a fake GitHub holding the bot's
// comment for suite s on PR 42 (alice's, from alice/gate), and PR 7 from
// mallory's fork; the step is a workflow_run job triggered by the run on
// mallory's head commit. It returns the fake and the report path.
func forkGitHub(t *testing.T) (*ghactiontest.GitHub, string) {
	t.Helper()
	gh := ghactiontest.NewGitHub(t, "")
	gh.SetPull(42, strings.Repeat("b", 40), "alice/gate", 11)
	gh.SetPull(7, strings.Repeat("a", 40), "mallory/gate", 66)
	gh.SeedBy(42, ghactiontest.BotLogin, 1, func(int) string { return "<!-- llmgate:s -->\n### llmgate · s: alice's report\n" })
	r := ghactiontest.NewRunner(t)
	r.WorkflowRun(t, strings.Repeat("a", 40), "mallory/gate", 66)
	r.Vars["GITHUB_API_URL"] = gh.APIURL()
	r.Vars["GITHUB_TOKEN"] = ghactiontest.Token
	r.Vars["GITHUB_ACTIONS"] = ""
	r.Setenv(t)
	report := filepath.Join(r.Dir, "report.md")
	if err := os.WriteFile(report, []byte("### llmgate · s: ![pwned](https://e.invalid/x.png) all good\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return gh, report
}

// The probe: with a fake GitHub holding the bot's comment on PR 42, a
// report "from" PR 7 (the fork's artifact naming 42) replaced PR 42's
// comment. In a workflow_run job the pull request must be the triggering
// run's: the artifact's number for another PR is refused and nothing is
// posted; its own PR gets the comment.
func TestCommentRefusesAnotherPullRequest(t *testing.T) {
	gh, report := forkGitHub(t)
	code, stdout, stderr := gateCLI(t, "comment", report, "--suite", "s", "--pr", "42")
	if code != exitUsage || !strings.Contains(stderr, "is not the triggering run's") || !strings.Contains(stderr, "nothing posted") {
		t.Errorf("--pr 42 from mallory's run: exit %d\n%s%s", code, stdout, stderr)
	}
	if cms := gh.Comments(42); len(cms) != 1 || !strings.Contains(cms[0].Body, "alice's report") {
		t.Errorf("PR 42's comments = %+v, want alice's untouched", cms)
	}
	for _, req := range gh.Requests() {
		if strings.HasPrefix(req, "POST") || strings.HasPrefix(req, "PATCH") {
			t.Errorf("a write reached the API: %s", req)
		}
	}
	code, stdout, stderr = gateCLI(t, "comment", report, "--suite", "s", "--pr", "7")
	if code != exitPass || len(gh.Comments(7)) != 1 {
		t.Fatalf("--pr 7: exit %d, %d comments\n%s%s", code, len(gh.Comments(7)), stdout, stderr)
	}
}

// A pull request pushed to since the run, one from another repository at
// the same commit, and one whose fork was deleted are refused too; a PR
// GitHub does not know is GitHub's answer (exit 3).
func TestCommentChecksHeadCommitAndRepository(t *testing.T) {
	gh, report := forkGitHub(t)
	gh.SetPull(7, strings.Repeat("c", 40), "mallory/gate", 66) // a newer push
	if code, _, stderr := gateCLI(t, "comment", report, "--suite", "s", "--pr", "7"); code != exitUsage || !strings.Contains(stderr, "pushed to since") {
		t.Errorf("moved head: exit %d, %s", code, stderr)
	}
	gh.SetPull(7, strings.Repeat("a", 40), "mallory/other", 67)
	if code, _, stderr := gateCLI(t, "comment", report, "--suite", "s", "--pr", "7"); code != exitUsage || !strings.Contains(stderr, "comes from mallory/other") {
		t.Errorf("other repository: exit %d, %s", code, stderr)
	}
	gh.SetPull(7, strings.Repeat("a", 40), "mallory/gate", 67) // renamed and recreated: the id tells
	if code, _, stderr := gateCLI(t, "comment", report, "--suite", "s", "--pr", "7"); code != exitUsage {
		t.Errorf("same name, other repository id: exit %d, %s", code, stderr)
	}
	gh.SetPull(7, strings.Repeat("a", 40), "", 0)
	if code, _, stderr := gateCLI(t, "comment", report, "--suite", "s", "--pr", "7"); code != exitUsage || !strings.Contains(stderr, "fork was deleted") {
		t.Errorf("deleted fork: exit %d, %s", code, stderr)
	}
	if code, _, stderr := gateCLI(t, "comment", report, "--suite", "s", "--pr", "8"); code != exitInfra || !strings.Contains(stderr, "404") {
		t.Errorf("unknown PR: exit %d, %s", code, stderr)
	}
	if len(gh.Comments(7)) != 0 || len(gh.Comments(8)) != 0 {
		t.Errorf("something was posted")
	}
}

// The probe: comment read its report whole (1.25 GB for a 300 MB file).
// It reads the first MiB: a report of 3 MiB (a sparse file of NULs after a
// heading) is posted cut to GitHub's limit, with a note.
func TestCommentReadsItsReportBounded(t *testing.T) {
	gh := ghactiontest.NewGitHub(t, "")
	t.Setenv("GITHUB_API_URL", gh.APIURL())
	t.Setenv("GITHUB_TOKEN", ghactiontest.Token)
	t.Setenv("GITHUB_REPOSITORY", "octo/gate")
	t.Setenv("INPUT_GITHUB-TOKEN", "")
	t.Setenv("GITHUB_EVENT_NAME", "")
	report := filepath.Join(t.TempDir(), "report.md")
	body := strings.Repeat("| row | 1.0 ms |\n", 3<<20/18)
	if err := os.WriteFile(report, []byte("### llmgate · s: big\n"+body), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := gateCLI(t, "comment", report, "--suite", "s", "--pr", "12")
	if code != exitPass || !strings.Contains(stdout, "over 1 MiB: its start was read") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if got := gh.Comments(12)[0].Body; len([]rune(got)) > ghactiontest.MaxBody || !strings.Contains(got, "cut to") {
		t.Errorf("comment of %d characters", len([]rune(got)))
	}
	if s, cut, err := readReport(report); err != nil || !cut || len(s) != maxReportBytes {
		t.Errorf("readReport: %d bytes, cut %v, %v", len(s), cut, err)
	}
}
