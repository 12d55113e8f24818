package ghaction

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
)

// In the fork workflow (docs/action.md, workflow 4) a workflow_run job
// posts the report that a pull_request run uploaded. The artifact comes
// from the fork's run, so the pull request number in it is the fork's to
// choose: taken on trust, it let a fork's report replace llmgate's comment
// on any other pull request. The triggering run in the event payload is
// GitHub's word, not the fork's: its head commit and head repository must
// be the pull request's. (workflow_run.pull_requests is empty for forks, so
// the pull request is looked up instead.)

// WorkflowRun is the run that triggered a workflow_run event, as the event
// payload at GITHUB_EVENT_PATH describes it.
type WorkflowRun struct {
	// ID is the run's id; Event the event that triggered it (pull_request).
	ID    int64
	Event string
	// HeadSHA is the commit the run ran on.
	HeadSHA string
	// HeadRepo ("owner/name") and HeadRepoID are the repository the commit
	// came from: the fork, for a fork's pull request.
	HeadRepo   string
	HeadRepoID int64
}

// ErrNotWorkflowRun is wrapped by WorkflowRunFromEnv's error for a run
// that a workflow_run event did not trigger.
var ErrNotWorkflowRun = errors.New("not a workflow_run event")

// WorkflowRunFromEnv reads the triggering run of a workflow_run event.
func WorkflowRunFromEnv(getenv func(string) string) (*WorkflowRun, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	if ev := getenv("GITHUB_EVENT_NAME"); ev != "workflow_run" {
		return nil, fmt.Errorf("event %q: %w", ev, ErrNotWorkflowRun)
	}
	data, path, err := readEvent(getenv)
	if err != nil {
		return nil, err
	}
	var payload struct {
		Run *struct {
			ID       int64  `json:"id"`
			Event    string `json:"event"`
			HeadSHA  string `json:"head_sha"`
			HeadRepo *struct {
				ID       int64  `json:"id"`
				FullName string `json:"full_name"`
			} `json:"head_repository"`
		} `json:"workflow_run"`
	}
	if err := json.Unmarshal(data, &payload); err != nil {
		return nil, fmt.Errorf("event payload %s: %w", path, err)
	}
	r := payload.Run
	if r == nil || r.HeadSHA == "" || r.HeadRepo == nil || r.HeadRepo.FullName == "" {
		return nil, fmt.Errorf("event payload %s names no workflow_run with a head_sha and a head_repository", path)
	}
	return &WorkflowRun{ID: r.ID, Event: r.Event, HeadSHA: r.HeadSHA, HeadRepo: r.HeadRepo.FullName, HeadRepoID: r.HeadRepo.ID}, nil
}

// Pull is a pull request's head as GET /repos/O/R/pulls/N answers it.
type Pull struct {
	Number int `json:"number"`
	Head   struct {
		SHA  string `json:"sha"`
		Repo *struct {
			ID       int64  `json:"id"`
			FullName string `json:"full_name"`
		} `json:"repo"`
	} `json:"head"`
}

// PullRequest reads pull request number of repo.
func (c *Client) PullRequest(ctx context.Context, repo Repo, number int) (*Pull, error) {
	u, err := c.repoEndpoint(repo, fmt.Sprintf("/pulls/%d", number), nil)
	if err != nil {
		return nil, err
	}
	var p Pull
	if _, err := c.do(ctx, http.MethodGet, u, nil, &p); err != nil {
		return nil, err
	}
	return &p, nil
}

// ErrNotRunsPull is wrapped by CheckPullOfRun's error: the pull request is
// not the one the triggering run ran for.
var ErrNotRunsPull = errors.New("the pull request is not the triggering run's")

// CheckPullOfRun refuses pull request number of repo unless the
// triggering run ran on its head: the same head commit, from the same
// repository (by id when both say it, else by name). A pull request that
// moved on since (a newer push) is refused too: the newer push's run posts
// its own report.
func (c *Client) CheckPullOfRun(ctx context.Context, repo Repo, number int, run *WorkflowRun) error {
	p, err := c.PullRequest(ctx, repo, number)
	if err != nil {
		return fmt.Errorf("look up %s#%d: %w", repo, number, err)
	}
	head := p.Head.Repo
	switch {
	case head == nil:
		return fmt.Errorf("%w: %s#%d has no head repository (the fork was deleted)", ErrNotRunsPull, repo, number)
	case !strings.EqualFold(p.Head.SHA, run.HeadSHA):
		return fmt.Errorf("%w: %s#%d is at commit %s, the run that triggered this one ran on %s (a report for another pull request, or one that has been pushed to since)",
			ErrNotRunsPull, repo, number, short(p.Head.SHA), short(run.HeadSHA))
	case head.ID != 0 && run.HeadRepoID != 0 && head.ID != run.HeadRepoID,
		!strings.EqualFold(head.FullName, run.HeadRepo):
		return fmt.Errorf("%w: %s#%d comes from %s, the run that triggered this one from %s", ErrNotRunsPull, repo, number, head.FullName, run.HeadRepo)
	}
	return nil
}

// short is a commit's first 12 characters.
func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
