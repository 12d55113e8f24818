package main

import (
	"context"
	"fmt"
	"os"
	"strconv"

	"github.com/llmgate/llmgate/ghaction"
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

The token is GITHUB_TOKEN; the API is GITHUB_API_URL (default
https://api.github.com); the repository is --repo, else GITHUB_REPOSITORY.
A report over GitHub's 65,536-character limit is cut with a note.

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
	pr := fs.Int("pr", 0, "the pull request `NUMBER` (required)")
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
	if *pr <= 0 {
		return usagef("--pr: want the pull request's number, got %s", strconv.Itoa(*pr))
	}
	repoName := *repoFlag
	if repoName == "" {
		repoName = e.getenv("GITHUB_REPOSITORY")
	}
	repo, err := ghaction.ParseRepo(repoName)
	if err != nil {
		return usagef("--repo or GITHUB_REPOSITORY: %v", err)
	}
	body, err := os.ReadFile(pos[0])
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
	res, err := client.UpsertSticky(ctx, repo, *pr, *suiteName, string(body), ghaction.RunURL(e.getenv))
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
	case res.Truncated:
		what += " (the report was cut to fit GitHub's limit)"
	}
	fmt.Fprintf(e.stdout, "Comment %s: %s\n", what, res.Comment.HTMLURL)
	return nil
}
