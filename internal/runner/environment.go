package runner

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/untrusted"
)

// gitTimeout bounds each best-effort git call.
const gitTimeout = 5 * time.Second

// DetectEnvironment returns what is known about where llmgate runs before
// any target starts: the git commit and ref (GITHUB_SHA and GITHUB_REF under
// GitHub Actions, else `git rev-parse` in dir, best effort), the host name
// and the given llmgate version. getenv nil means os.Getenv.
func DetectEnvironment(ctx context.Context, getenv func(string) string, dir, llmgateVersion string) results.Environment {
	if getenv == nil {
		getenv = os.Getenv
	}
	env := results.Environment{
		GitSHA:         untrusted.String(getenv("GITHUB_SHA")),
		GitRef:         untrusted.String(getenv("GITHUB_REF")),
		LLMGateVersion: untrusted.String(llmgateVersion),
	}
	if env.GitSHA == "" {
		env.GitSHA = untrusted.String(git(ctx, dir, "rev-parse", "HEAD"))
	}
	if env.GitRef == "" {
		if ref := git(ctx, dir, "rev-parse", "--symbolic-full-name", "HEAD"); ref != "HEAD" {
			env.GitRef = untrusted.String(ref)
		}
	}
	if h, err := os.Hostname(); err == nil {
		env.Host = untrusted.String(h)
	}
	return env
}

// git runs a git command in dir and returns its trimmed output, or "" on
// any failure (no git, not a repository).
func git(ctx context.Context, dir string, args ...string) string {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
