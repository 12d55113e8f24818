package ghaction

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/internal/ghactiontest"
)

func TestPullRequestFromEnv(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	pr := write("pr.json", `{"number": 12, "pull_request": {"number": 12}}`)
	push := write("push.json", `{"ref": "refs/heads/main"}`)
	bad := write("bad.json", `{`)
	tests := []struct {
		name    string
		env     map[string]string
		want    int
		wantErr string
		notPR   bool
	}{
		// the ordinary pull_request event
		{name: "pull_request", env: map[string]string{"GITHUB_EVENT_NAME": "pull_request", "GITHUB_REPOSITORY": "o/r", "GITHUB_EVENT_PATH": pr}, want: 12},
		// pull_request_target carries the same payload
		{name: "pull_request_target", env: map[string]string{"GITHUB_EVENT_NAME": "pull_request_target", "GITHUB_REPOSITORY": "o/r", "GITHUB_EVENT_PATH": pr}, want: 12},
		// a push is not a pull request: no comment, no error worth warning about
		{name: "push", env: map[string]string{"GITHUB_EVENT_NAME": "push", "GITHUB_REPOSITORY": "o/r", "GITHUB_EVENT_PATH": push}, notPR: true},
		// a PR event whose payload lacks the number is an error
		{name: "no number", env: map[string]string{"GITHUB_EVENT_NAME": "pull_request", "GITHUB_REPOSITORY": "o/r", "GITHUB_EVENT_PATH": push}, wantErr: "no pull_request.number"},
		// a broken payload is an error naming the file
		{name: "bad json", env: map[string]string{"GITHUB_EVENT_NAME": "pull_request", "GITHUB_REPOSITORY": "o/r", "GITHUB_EVENT_PATH": bad}, wantErr: "bad.json"},
		// the repository must be owner/name
		{name: "bad repo", env: map[string]string{"GITHUB_EVENT_NAME": "pull_request", "GITHUB_REPOSITORY": "o", "GITHUB_EVENT_PATH": pr}, wantErr: "want owner/name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := PullRequestFromEnv(func(k string) string { return tt.env[k] })
			switch {
			case tt.notPR:
				if !errors.Is(err, ErrNotPullRequest) {
					t.Errorf("err = %v, want ErrNotPullRequest", err)
				}
			case tt.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("err = %v, want one containing %q", err, tt.wantErr)
				}
			case err != nil:
				t.Fatal(err)
			case got.Number != tt.want || got.Repo != (Repo{"o", "r"}):
				t.Errorf("got %+v, want o/r#%d", got, tt.want)
			}
		})
	}
}

func TestToken(t *testing.T) {
	env := map[string]string{"GITHUB_TOKEN": "env-token"}
	if got := Token(func(k string) string { return env[k] }); got != "env-token" {
		t.Errorf("Token = %q, want GITHUB_TOKEN's", got)
	}
	env["INPUT_GITHUB-TOKEN"] = "input-token"
	if got := Token(func(k string) string { return env[k] }); got != "input-token" {
		t.Errorf("Token = %q, want the input's", got)
	}
}

func TestPostCommentCreatesOnPR(t *testing.T) {
	gh := ghactiontest.NewGitHub(t, "")
	e := newRunnerEnv(t)
	e.vars["GITHUB_API_URL"] = gh.APIURL()
	e.vars["GITHUB_TOKEN"] = ghactiontest.Token
	res := e.actions().PostComment(context.Background(), "suite", "report", nil)
	if res.Outcome != CommentCreated || res.URL == "" {
		t.Fatalf("result = %+v, want created", res)
	}
	res = e.actions().PostComment(context.Background(), "suite", "report 2", nil)
	if res.Outcome != CommentUpdated || len(gh.Comments(7)) != 1 || !strings.HasSuffix(gh.Comments(7)[0].Body, "report 2") {
		t.Errorf("second push: result = %+v, comments = %+v; want the one comment updated", res, gh.Comments(7))
	}
}

func TestPostCommentForbiddenFallsBack(t *testing.T) {
	// A fork PR's read-only token: 403 on POST. Warn, note it in the step summary, never fail.
	gh := ghactiontest.NewGitHub(t, "")
	gh.SetReadOnly(true)
	e := newRunnerEnv(t)
	e.vars["GITHUB_API_URL"] = gh.APIURL()
	e.vars["INPUT_GITHUB-TOKEN"] = ghactiontest.Token
	res := e.actions().PostComment(context.Background(), "llama-8b-gate", "report", nil)
	if res.Outcome != CommentFallback {
		t.Fatalf("result = %+v, want fallback", res)
	}
	if sum := e.read(t, "summary.md"); !strings.Contains(sum, "could not post its pull-request comment for `llama-8b-gate`") || !strings.Contains(sum, "forks") {
		t.Errorf("step summary lacks the notice:\n%s", sum)
	}
	if log := e.stdout.String(); !strings.HasPrefix(log, "::warning title=llmgate%3A PR comment not posted::") || !strings.Contains(log, "GitHub answered 403 Resource not accessible by integration") {
		t.Errorf("log lacks the warning: %s", log)
	}
	if len(gh.Comments(7)) != 0 {
		t.Error("a comment was stored despite the read-only token")
	}
}

func TestPostCommentSkips(t *testing.T) {
	tests := []struct {
		name   string
		change func(e *runnerEnv)
		want   string
	}{
		// a push to main is not a pull request
		{name: "push event", change: func(e *runnerEnv) { e.vars["GITHUB_EVENT_NAME"] = "push"; e.vars["GITHUB_TOKEN"] = "t" }, want: "not a pull request"},
		// without a token there is nothing to post with
		{name: "no token", change: func(e *runnerEnv) {}, want: "no token"},
		// outside Actions nothing is attempted
		{name: "not actions", change: func(e *runnerEnv) { e.vars["GITHUB_ACTIONS"] = ""; e.vars["GITHUB_TOKEN"] = "t" }, want: "not running in GitHub Actions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newRunnerEnv(t)
			e.vars["GITHUB_API_URL"] = "http://127.0.0.1:1" // never reached
			tt.change(e)
			res := e.actions().PostComment(context.Background(), "s", "r", nil)
			if res.Outcome != CommentSkipped || !strings.Contains(res.Reason, tt.want) {
				t.Errorf("result = %+v, want skipped because %q", res, tt.want)
			}
		})
	}
}

func TestRunURL(t *testing.T) {
	env := map[string]string{"GITHUB_SERVER_URL": "https://ghe.example/", "GITHUB_REPOSITORY": "o/r", "GITHUB_RUN_ID": "9"}
	if got := RunURL(func(k string) string { return env[k] }); got != "https://ghe.example/o/r/actions/runs/9" {
		t.Errorf("RunURL = %q", got)
	}
}
