package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"unicode/utf8"

	"github.com/llmgate/llmgate/internal/ghaction"
)

func init() {
	register(&command{
		name:    "comment",
		summary: "post or update llmgate's sticky comment on a pull request",
		usage:   "REPORT.md --suite NAME --pr NUMBER [flags]",
		help: `
Comment posts the markdown report REPORT.md (what 'llmgate gate --markdown'
wrote) as llmgate's comment for suite NAME on pull request NUMBER, or updates
that comment when it is already there: one comment per suite, found by a
hidden marker, so every push edits it instead of adding another.

'llmgate gate' does this by itself on pull_request events. Comment exists for
pull requests from forks, whose token may not write: the gate runs in the
unprivileged pull_request workflow and uploads its report, and a workflow_run
workflow, which has a write token, downloads it and runs this command.

The report and the number come from the fork's run, so neither is
trusted. In a workflow_run job (GITHUB_EVENT_NAME=workflow_run) the pull
request must be the triggering run's: its head commit must be the event's
workflow_run.head_sha and its head repository workflow_run.head_repository
(GET /repos/OWNER/NAME/pulls/NUMBER), or nothing is posted (exit 2). A pull
request that was pushed to after the run is refused the same way; the newer
push's run posts its own report. NUMBER is decimal digits only.

The token is GITHUB_TOKEN; the API is GITHUB_API_URL (default
https://api.github.com); the repository is --repo, else GITHUB_REPOSITORY.
A report over GitHub's 65,536-character limit is cut with a note; only its
first MiB is read.

Example (in a workflow_run workflow):
  llmgate comment report.md --suite llama-8b-gate --pr "$(cat pr-number)"

Exit codes: 0 posted; 2 bad usage; 3 GitHub refused or could not be reached.`,
		run: commentCommand,
	})
}

func commentCommand(ctx context.Context, e *env, args []string) error {
	c := commands["comment"]
	fs := newFlags(c, e)
	suiteName := fs.String("suite", "", "the suite's name, which tells its comment apart (`NAME`, required)")
	prText := fs.String("pr", "", "the pull request `NUMBER`, in decimal digits (required)")
	repoFlag := fs.String("repo", "", "the repository as `OWNER/NAME` (default: GITHUB_REPOSITORY)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("comment takes one markdown report file, got %d arguments (see llmgate help comment)", len(pos))
	}
	if *suiteName == "" {
		return usagef("--suite: want the suite's name (the label of its suite block)")
	}
	pr, err := prNumber(*prText)
	if err != nil {
		return err
	}
	repoName := *repoFlag
	if repoName == "" {
		repoName = e.getenv("GITHUB_REPOSITORY")
	}
	repo, err := ghaction.ParseRepo(repoName)
	if err != nil {
		return usagef("--repo or GITHUB_REPOSITORY: %v", err)
	}
	body, cut, err := readReport(pos[0])
	if err != nil {
		return usageErr(fmt.Errorf("read report: %w", err))
	}
	token := ghaction.Token(e.getenv)
	if token == "" {
		return usagef("no token: set GITHUB_TOKEN (in a workflow: env: GITHUB_TOKEN: ${{ github.token }} with pull-requests: write)")
	}
	client, err := ghaction.NewClient(e.getenv("GITHUB_API_URL"), token, nil)
	if err != nil {
		return usageErr(err)
	}
	if run, err := ghaction.WorkflowRunFromEnv(e.getenv); err == nil {
		if err := client.CheckPullOfRun(ctx, repo, pr, run); err != nil {
			if errors.Is(err, ghaction.ErrNotRunsPull) {
				return usageErr(fmt.Errorf("%w; nothing posted", err))
			}
			return infraErr(err)
		}
	} else if !errors.Is(err, ghaction.ErrNotWorkflowRun) {
		return usageErr(fmt.Errorf("workflow_run event: %w; nothing posted", err))
	}
	res, err := client.UpsertSticky(ctx, repo, pr, *suiteName, body, ghaction.RunURL(e.getenv))
	if err != nil {
		if ghaction.IsForbidden(err) {
			return infraErr(fmt.Errorf("%w (the token may not comment: it needs pull-requests: write, which pull_request workflows from forks never get)", err))
		}
		return infraErr(err)
	}
	what := "updated"
	if res.Created {
		what = "created"
	}
	switch {
	case res.Shortened:
		what += " (GitHub refused the full report; a short note points to the workflow run)"
	case res.Truncated && cut:
		what += fmt.Sprintf(" (the report is over %d MiB: its start was read and cut to fit GitHub's limit)", maxReportBytes>>20)
	case res.Truncated:
		what += " (the report was cut to fit GitHub's limit)"
	}
	fmt.Fprintf(e.stdout, "Comment %s: %s\n", what, res.Comment.HTMLURL)
	return nil
}

// prDigits is a pull request number as --pr takes it: decimal digits, no
// sign, no leading zero (flag.Int would read 0x2a, 052 or 4_2 as 42).
var prDigits = regexp.MustCompile(`^[1-9][0-9]{0,9}$`)

// prNumber parses --pr.
func prNumber(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if !prDigits.MatchString(s) || err != nil || n > 1<<31-1 {
		return 0, usagef("--pr %q: want the pull request's number in decimal digits, such as 42", s)
	}
	return n, nil
}

// maxReportBytes is how much of the report comment reads: far more than a
// comment holds (65,536 characters of at most 4 bytes each).
const maxReportBytes = 1 << 20

// readReport reads at most maxReportBytes of the report at path, cut on a
// character boundary, and says whether there was more.
func readReport(path string) (string, bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", false, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxReportBytes+1))
	if err != nil {
		return "", false, err
	}
	if len(b) <= maxReportBytes {
		return string(b), false, nil
	}
	b = b[:maxReportBytes]
	for len(b) > 0 && !utf8.Valid(b[max(len(b)-utf8.UTFMax, 0):]) {
		b = b[:len(b)-1]
	}
	return string(b), true, nil
}
