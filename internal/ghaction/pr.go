package ghaction

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/llmgate/llmgate/untrusted"
)

// maxEventBytes bounds the event payload read from GITHUB_EVENT_PATH;
// GitHub's are kilobytes.
const maxEventBytes = 16 << 20

// readEvent reads the event payload at GITHUB_EVENT_PATH, at most
// maxEventBytes of it, and returns it with its path.
func readEvent(getenv func(string) string) ([]byte, string, error) {
	path := getenv("GITHUB_EVENT_PATH")
	if path == "" {
		return nil, "", errors.New("GITHUB_EVENT_PATH is empty: cannot tell what triggered this run")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, path, fmt.Errorf("read event payload: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxEventBytes+1))
	switch {
	case err != nil:
		return nil, path, fmt.Errorf("read event payload: %w", err)
	case len(data) > maxEventBytes:
		return nil, path, fmt.Errorf("event payload %s is over %d MiB", path, maxEventBytes>>20)
	}
	return data, path, nil
}

// PullRequest is the pull request a workflow run is about.
type PullRequest struct {
	Repo   Repo
	Number int
}

// ErrNotPullRequest is returned by PullRequestFromEnv for a run that was not
// triggered by a pull request.
var ErrNotPullRequest = errors.New("not a pull request event")

// PullRequestFromEnv finds the pull request of a run triggered by
// pull_request or pull_request_target: the repository from
// GITHUB_REPOSITORY and the number from the event payload at
// GITHUB_EVENT_PATH (pull_request.number). Other events give an error
// wrapping ErrNotPullRequest.
func PullRequestFromEnv(getenv func(string) string) (PullRequest, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	event := getenv("GITHUB_EVENT_NAME")
	if event != "pull_request" && event != "pull_request_target" {
		if event == "" {
			event = "(unset)"
		}
		return PullRequest{}, fmt.Errorf("event %s: %w", event, ErrNotPullRequest)
	}
	repo, err := ParseRepo(getenv("GITHUB_REPOSITORY"))
	if err != nil {
		return PullRequest{}, fmt.Errorf("GITHUB_REPOSITORY: %w", err)
	}
	data, path, err := readEvent(getenv)
	if err != nil {
		return PullRequest{}, err
	}
	var payload struct {
		Number      int `json:"number"`
		PullRequest struct {
			Number int `json:"number"`
		} `json:"pull_request"`
	}
	if err := json.Unmarshal(data, &payload); err != nil {
		return PullRequest{}, fmt.Errorf("event payload %s: %w", path, err)
	}
	n := payload.PullRequest.Number
	if n == 0 {
		n = payload.Number
	}
	if n <= 0 {
		return PullRequest{}, fmt.Errorf("event payload %s has no pull_request.number", path)
	}
	return PullRequest{Repo: repo, Number: n}, nil
}

// Token returns the token to comment with: the action's github-token input
// (INPUT_GITHUB-TOKEN), else GITHUB_TOKEN.
func Token(getenv func(string) string) string {
	if getenv == nil {
		getenv = os.Getenv
	}
	for _, k := range []string{"INPUT_GITHUB-TOKEN", "INPUT_GITHUB_TOKEN", "GITHUB_TOKEN"} {
		if v := strings.TrimSpace(getenv(k)); v != "" {
			return v
		}
	}
	return ""
}

// RunURL is the web page of the current workflow run, or "" when the
// environment does not say.
func RunURL(getenv func(string) string) string {
	if getenv == nil {
		getenv = os.Getenv
	}
	server, repo, id := getenv("GITHUB_SERVER_URL"), getenv("GITHUB_REPOSITORY"), getenv("GITHUB_RUN_ID")
	if server == "" {
		server = "https://github.com"
	}
	if repo == "" || id == "" {
		return ""
	}
	return strings.TrimRight(server, "/") + "/" + repo + "/actions/runs/" + id
}

// CommentOutcome values say what PostComment did.
const (
	CommentCreated  = "created"  // a new comment was posted
	CommentUpdated  = "updated"  // the existing comment was edited
	CommentSkipped  = "skipped"  // nothing to do: not Actions, not a PR, no token
	CommentFallback = "fallback" // the token may not comment (fork PR): notice in the step summary
	CommentFailed   = "failed"   // the API failed otherwise; warned, the gate goes on
)

// CommentResult says what PostComment did and why.
type CommentResult struct {
	// Outcome is one of the Comment constants.
	Outcome string
	// URL is the comment's page when one was posted.
	URL string
	// Truncated and Shortened are StickyResult's.
	Truncated, Shortened bool
	// Reason explains skipped, fallback and failed.
	Reason string
}

// PostComment posts or updates llmgate's sticky comment for suite on the
// pull request this run is about. It never fails the caller: when the
// token may not comment (401/403, as on a pull request from a fork) it
// issues a warning and appends a notice to the step summary, which already
// holds the report; other API failures become a warning. hc nil means a
// client with a 30-second timeout.
func (a *Actions) PostComment(ctx context.Context, suite, markdown string, hc *http.Client) CommentResult {
	if !a.Enabled() {
		return CommentResult{Outcome: CommentSkipped, Reason: "not running in GitHub Actions"}
	}
	pr, err := PullRequestFromEnv(a.getenv)
	if errors.Is(err, ErrNotPullRequest) {
		return CommentResult{Outcome: CommentSkipped, Reason: err.Error()}
	}
	if err != nil {
		a.Warning("llmgate: no PR comment", err.Error())
		return CommentResult{Outcome: CommentFailed, Reason: err.Error()}
	}
	token := Token(a.getenv)
	if token == "" {
		reason := "no token: pass github-token to the action or set GITHUB_TOKEN to get a PR comment"
		a.Notice("llmgate: no PR comment", reason)
		return CommentResult{Outcome: CommentSkipped, Reason: reason}
	}
	c, err := NewClient(a.getenv("GITHUB_API_URL"), token, hc)
	if err != nil {
		a.Warning("llmgate: no PR comment", err.Error())
		return CommentResult{Outcome: CommentFailed, Reason: err.Error()}
	}
	res, err := c.UpsertSticky(ctx, pr.Repo, pr.Number, suite, markdown, RunURL(a.getenv))
	switch {
	case IsForbidden(err):
		reason := fmt.Sprintf("the token may not comment on %s#%d (GitHub answered %s); this is expected on pull requests from forks, whose token is read-only", pr.Repo, pr.Number, shortError(err))
		a.Warning("llmgate: PR comment not posted", reason+". The report is in this step's summary.")
		_ = a.AppendSummary(fallbackNotice(suite, shortError(err)))
		return CommentResult{Outcome: CommentFallback, Reason: reason}
	case err != nil:
		a.Warning("llmgate: PR comment not posted", err.Error()+". The report is in this step's summary.")
		return CommentResult{Outcome: CommentFailed, Reason: err.Error()}
	}
	out := CommentResult{Outcome: CommentUpdated, Truncated: res.Truncated, Shortened: res.Shortened}
	if res.Created {
		out.Outcome = CommentCreated
	}
	if res.Comment != nil {
		out.URL = res.Comment.HTMLURL
	}
	return out
}

// fallbackNotice is the step-summary note for a comment the token could not post.
func fallbackNotice(suite, why string) string {
	return fmt.Sprintf("\n> [!NOTE]\n> **llmgate could not post its pull-request comment for %s** (GitHub answered %s).\n"+
		"> This is expected on pull requests from forks: their `GITHUB_TOKEN` is read-only. The report is in this summary.\n"+
		"> To comment on fork PRs, post it from a `workflow_run` workflow (`llmgate comment`); see llmgate's docs/action.md.\n",
		untrusted.Code(suite), untrusted.Markdown(why))
}
