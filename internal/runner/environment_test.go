package runner

import (
	"context"
	"os/exec"
	"testing"
)

// TestDetectEnvironment checks GitHub's variables win and git is asked otherwise.
func TestDetectEnvironment(t *testing.T) {
	gh := map[string]string{"GITHUB_SHA": "abc123", "GITHUB_REF": "refs/pull/7/merge"}
	env := DetectEnvironment(context.Background(), func(k string) string { return gh[k] }, t.TempDir(), "v1.2.3")
	if env.GitSHA != "abc123" || env.GitRef != "refs/pull/7/merge" || env.LLMGateVersion != "v1.2.3" {
		t.Errorf("under GitHub Actions got sha %q ref %q version %q", env.GitSHA, env.GitRef, env.LLMGateVersion)
	}
	if env.Host == "" {
		t.Error("host name missing")
	}

	// Outside a repository git fails and the fields stay empty.
	env = DetectEnvironment(context.Background(), func(string) string { return "" }, t.TempDir(), "dev")
	if env.GitSHA != "" || env.GitRef != "" {
		t.Errorf("outside a repository got sha %q ref %q, want none", env.GitSHA, env.GitRef)
	}

	// In a repository with a commit, git's answer is used.
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git binary")
	}
	dir := t.TempDir()
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "x"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	env = DetectEnvironment(context.Background(), func(string) string { return "" }, dir, "dev")
	if len(env.GitSHA) != 40 || env.GitRef != "refs/heads/main" {
		t.Errorf("in a repository got sha %q ref %q, want 40 hex digits and refs/heads/main", env.GitSHA, env.GitRef)
	}
}
