package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/llmgate/llmgate/ghaction/ghactiontest"
	"github.com/llmgate/llmgate/internal/hostile"
	"github.com/llmgate/llmgate/results"
)

// The secrets a hostile-server test run knows: the suite's api_key (read
// through env()), the server's HF_TOKEN (also in the job's environment) and
// the GitHub token.
const (
	// hostileAPIKey holds what markdown and HTML escape (the probe: it
	// was published escaped, Zx9&lt;Q+w\|Lm&gt;, past the masker).
	hostileAPIKey  = "Zx9<Q+w|Lm>&sk-9f8e7d6c5b4a"
	hostileHFToken = "hf_TestTokenAbCdEfGhIjKlMnOp"
	// hostileHub is a sensitive variable's value (the suite's description
	// holds it).
	hostileHub = "hub-secret-5e6f7a8b"
)

// hostileRun runs the hostile suite against a server in mode under a fake
// GitHub Actions runner and returns everything llmgate wrote or printed.
type hostileRun struct {
	code           int
	stdout, stderr string
	results        string // the results file
	summary        string // the step summary (gate only)
	markdown       string
	comment        string // the PR comment (gate only)
	took           time.Duration
	file           *results.File
}

func runHostile(t *testing.T, mode hostile.Mode, command string) hostileRun {
	t.Helper()
	gateNotActions(t)
	srv := hostile.Start(mode, hostileHFToken)
	t.Cleanup(srv.Close)
	gh := ghactiontest.NewGitHub(t, "")
	r := ghactiontest.NewRunner(t)
	r.Vars["GITHUB_API_URL"] = gh.APIURL()
	r.Vars["GITHUB_TOKEN"] = ghactiontest.Token
	r.Vars["HF_TOKEN"] = hostileHFToken
	r.Vars["LLMGATE_HOSTILE_API_KEY"] = hostileAPIKey
	r.Vars["LLMGATE_HOSTILE_HUB"] = hostileHub
	r.Vars["CI"] = "true" // read by env("CI"): configuration, never masked
	r.Setenv(t)
	out := filepath.Join(r.Dir, "results.json")
	args := []string{command, "testdata/hostile/hostile.hcl", "--var", "url=" + srv.URL, "-o", out}
	if command == "gate" {
		args = append(args, "--baseline", "none")
	}
	start := time.Now()
	code, stdout, stderr := gateCLI(t, args...)
	h := hostileRun{code: code, stdout: stdout, stderr: stderr, took: time.Since(start)}
	t.Logf("%s %s: exit %d in %v; server sent %d bytes of /metrics", command, mode, code, h.took.Round(time.Millisecond), srv.MetricsBytes.Load())
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("no results file: %v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	h.results = string(b)
	if !json.Valid(b) {
		t.Fatalf("results file is not valid JSON:\n%.2000s", b)
	}
	if h.file, err = results.ReadFile(out); err != nil {
		t.Fatalf("results file does not read: %v", err)
	}
	if command == "gate" {
		h.summary = r.Summary(t)
		md, _ := os.ReadFile(filepath.Join(r.Dir, "results.md"))
		h.markdown = string(md)
		cms := gh.Comments(ghactiontest.PR)
		if len(cms) != 1 {
			t.Fatalf("%d PR comments, want 1", len(cms))
		}
		h.comment = cms[0].Body
		if strings.Count(h.comment, "<!-- llmgate:") != 1 || !strings.HasPrefix(h.comment, "<!-- llmgate:hostile -->") {
			t.Errorf("the PR comment carries a marker llmgate did not write:\n%s", h.comment)
		}
	}
	return h
}

// checkPublished asserts that nothing llmgate printed or wrote holds a
// secret, a workflow command it did not issue, a terminal escape, or
// markdown that would act.
func (h hostileRun) checkPublished(t *testing.T) {
	t.Helper()
	outputs := map[string]string{"stdout": h.stdout, "stderr": h.stderr, "results.json": h.results, "step summary": h.summary, "markdown": h.markdown, "PR comment": h.comment}
	for name, text := range outputs {
		if name == "stdout" { // the runner's ::add-mask:: registrations are the one place a secret belongs
			if !strings.HasPrefix(text, "::add-mask::") {
				t.Errorf("stdout does not start by registering the secrets:\n%.500s", text)
			}
			for _, l := range strings.Split(text, "\n") {
				if v, ok := strings.CutPrefix(l, "::add-mask::"); ok && (v == "true" || len(v) < 4) {
					t.Errorf("registered %q as a secret: the runner would blank it in the whole log", v)
				}
			}
			var kept []string
			for _, l := range strings.Split(text, "\n") {
				if !strings.HasPrefix(l, "::add-mask::") {
					kept = append(kept, l)
				}
			}
			text = strings.Join(kept, "\n")
		}
		for _, secret := range []string{hostileAPIKey, hostileHFToken, ghactiontest.Token, "TestTokenAbCd", "9f8e7d6c5b4a", "Zx9", hostileHub} {
			if strings.Contains(text, secret) {
				t.Errorf("%s holds the secret %q:\n%.3000s", name, secret, text)
			}
		}
		if strings.ContainsAny(text, "\x1b\x07") {
			t.Errorf("%s holds a terminal escape:\n%q", name, text)
		}
		for _, line := range strings.Split(text, "\n") {
			l := strings.TrimLeft(line, " \t")
			if (name == "stdout" || name == "stderr") && (strings.HasPrefix(l, "::error file=a.go") || strings.HasPrefix(l, "::add-mask::x") ||
				strings.HasPrefix(l, "::stop-commands::") || strings.HasPrefix(l, "##[") || strings.HasPrefix(l, "::warning::after-cr")) {
				t.Errorf("%s carries an injected workflow command: %q", name, line)
			}
		}
	}
	for name, md := range map[string]string{"step summary": h.summary, "markdown": h.markdown, "PR comment": h.comment} {
		for _, bad := range []string{"</details> <img", "<img src", "@octocat", "![i](", "<!-- llmgate:other-suite"} {
			if strings.Contains(md, bad) {
				t.Errorf("%s holds active markdown %q:\n%s", name, bad, md)
			}
		}
	}
}

// TestHostileServerModes runs the hostile suite through `llmgate run`
// against every mode of the hostile server, and through `llmgate gate` (step
// summary, markdown and PR comment too) against the modes whose text would
// be published: each ends in bounded time with a valid results file, a
// failed run where the server never answered properly, and nothing
// published unmasked or unescaped.
func TestHostileServerModes(t *testing.T) {
	type tc struct {
		mode    hostile.Mode
		command string
	}
	var cases []tc
	for _, mode := range hostile.Modes {
		cases = append(cases, tc{mode, "run"})
	}
	cases = append(cases, tc{hostile.EchoAuth, "gate"}, tc{hostile.Inject, "gate"}, tc{hostile.Status500, "gate"})
	for _, c := range cases {
		mode := c.mode
		t.Run(c.command+"/"+string(mode), func(t *testing.T) {
			var before runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			h := runHostile(t, mode, c.command)
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			if h.took > 60*time.Second {
				t.Errorf("took %v; every mode must end within the per-request timeout and a margin", h.took)
			}
			// a 100 MB line must not be buffered: the SSE reader caps an event at 8 MiB
			// and an endless /metrics must not be read without bound
			if grew := int64(after.HeapInuse) - int64(before.HeapInuse); grew > 64<<20 {
				t.Errorf("heap grew by %d MiB", grew>>20)
			}
			h.checkPublished(t)
			// a sensitive variable is masked, env("CI") is not, and the masked file still parses (checked on read)
			if d := h.file.Suite.Description; d != "ci=true, hub ***" {
				t.Errorf("suite description recorded as %q, want %q", d, "ci=true, hub ***")
			}
			if len(h.file.Runs) != 1 {
				t.Fatalf("results file has %d runs, want 1\nstdout:\n%s\nstderr:\n%s", len(h.file.Runs), h.stdout, h.stderr)
			}
			if mode == hostile.Inject {
				// the server's /version is published in the environment table: neutralised, one line
				if v := h.file.Environment.VLLMVersion; !strings.HasPrefix(v, "boom ") || strings.ContainsAny(v, "\n\r\x1b") {
					t.Errorf("version recorded as %q", v)
				}
			}
			run := h.file.Runs[0]
			switch mode {
			case hostile.SlowAccept, hostile.EndlessMetrics:
				if run.Status != results.StatusOK {
					t.Errorf("status %q, want ok: the server answers, slowly or with a huge /metrics\nstdout:\n%s\nstderr:\n%s", run.Status, h.stdout, h.stderr)
				}
			default:
				// UsageContradicts included: 8 content chunks against a
				// usage of 2 tokens fail the request.
				if run.Status == results.StatusOK && run.Summary.Requests.Failed == 0 {
					t.Errorf("status ok with no failed requests against a server that never answers properly\nstdout:\n%s", h.stdout)
				}
				if h.code == exitPass {
					t.Errorf("exit 0 against mode %s", mode)
				}
			}
		})
	}
}
