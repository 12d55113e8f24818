package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/ghaction/ghactiontest"
)

func TestCommentCommand(t *testing.T) {
	// The workflow_run half of the fork-PR pattern: post, then update, the suite's comment.
	gh := ghactiontest.NewGitHub(t, "")
	t.Setenv("GITHUB_API_URL", gh.APIURL())
	t.Setenv("GITHUB_TOKEN", ghactiontest.Token)
	t.Setenv("GITHUB_REPOSITORY", "octo/gate")
	t.Setenv("INPUT_GITHUB-TOKEN", "")
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
