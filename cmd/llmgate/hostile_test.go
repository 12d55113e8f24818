package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/llmgate/llmgate/internal/ghactiontest"
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
	// hostileUpstream is a request header's value, a secret by the
	// header's name (X-Upstream-Token) alone.
	hostileUpstream = "upstream-3d2c1b0a9f"
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
	r.Vars["LLMGATE_HOSTILE_UPSTREAM"] = hostileUpstream
	r.Vars["CI"] = "true" // read by env("CI"): configuration, never masked
	r.Setenv(t)
	out := filepath.Join(r.Dir, "results.json")
	args := []string{command, "testdata/hostile/hostile.hcl", "--var", "url=" + srv.URL, "-o", out}
	if mode == hostile.InjectModel {
		args = append(args, "--var", "model=") // take what the server lists
	}
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
		for _, secret := range []string{hostileAPIKey, hostileHFToken, ghactiontest.Token, "TestTokenAbCd", "9f8e7d6c5b4a", "Zx9", hostileHub, hostileUpstream, "3d2c1b0a9f"} {
			if strings.Contains(text, secret) {
				t.Errorf("%s holds the secret %q:\n%.3000s", name, secret, text)
			}
		}
		if strings.ContainsAny(text, "\x1b\x07") {
			t.Errorf("%s holds a terminal escape:\n%q", name, text)
		}
		for _, line := range strings.Split(text, "\n") {
			l := strings.TrimLeft(line, " \t")
			if (name == "stdout" || name == "stderr") && (strings.HasPrefix(l, "::error file=a.go") || strings.HasPrefix(l, "::add-mask::x") || strings.HasPrefix(l, "::error title=Forged") ||
				strings.HasPrefix(l, "::stop-commands::") || strings.HasPrefix(l, "##[") || strings.HasPrefix(l, "::warning::after-cr")) {
				t.Errorf("%s carries an injected workflow command: %q", name, line)
			}
		}
	}
	for name, md := range map[string]string{"step summary": h.summary, "markdown": h.markdown, "PR comment": h.comment} {
		live := hostile.Live(md) // inside code spans and fences nothing renders
		for _, bad := range hostile.ActiveMarkdown {
			if strings.Contains(live, bad) {
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
	fullRunOnly(t)
	type tc struct {
		mode    hostile.Mode
		command string
	}
	var cases []tc
	for _, mode := range hostile.Modes {
		cases = append(cases, tc{mode, "run"})
	}
	cases = append(cases, tc{hostile.EchoAuth, "gate"}, tc{hostile.Inject, "gate"}, tc{hostile.Status500, "gate"}, tc{hostile.InjectModel, "gate"})
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
				if v := h.file.Environment.VLLMVersion; !strings.HasPrefix(v.Raw(), "boom ") || strings.ContainsAny(v.Raw(), "\n\r\x1b") {
					t.Errorf("version recorded as %q", v)
				}
			}
			if mode == hostile.InjectModel {
				// the probe: the /v1/models id became a workflow command line and
				// rendered <img> and @team in the comment; it is recorded on one
				// line, without the bidi override, and published inert
				if m := h.file.Environment.Model.Raw(); !strings.Contains(m, "::error title=Forged::from the model id") || strings.ContainsAny(m, "\n\u202e") {
					t.Errorf("model recorded as %q", m)
				}
				// compared with itself, the environment table shows it
				res := filepath.Join(t.TempDir(), "r.json")
				if err := os.WriteFile(res, []byte(h.results), 0o644); err != nil {
					t.Fatal(err)
				}
				if md := selfCompare(t, res); !strings.Contains(md, "::error title=Forged::from the model id") {
					t.Errorf("the model id is missing from the report's environment:\n%s", md)
				}
			}
			run := h.file.Runs[0]
			switch mode {
			case hostile.SlowAccept, hostile.EndlessMetrics, hostile.InjectModel:
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

// hostileText is what a hostile file puts in every string it can: a
// workflow command on a line of its own, markdown that would render, a
// mention, references and autolinks, a terminal escape and a bidi override.
const hostileText = "x\n::error title=Forged::from a file </details><img src=x> @team https://evil.example www.evil.example octo/gate#1 #2 GH-3 \x1b[2J\u202eevil"

// The probe: import vllm-bench's model_id and request_rate reached the
// log, the summary and the comment raw. Imported, they are one clean line
// in the results file, and inert wherever they are published.
func TestHostileImport(t *testing.T) {
	gateNotActions(t)
	raw, err := os.ReadFile("../../testdata/vllmbench/summary.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	doc["model_id"], doc["request_rate"] = hostileText, hostileText
	dir := t.TempDir()
	in := filepath.Join(dir, "bench.json")
	b, _ := json.Marshal(doc)
	if err := os.WriteFile(in, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "imported.json")
	if code, _, stderr := gateCLI(t, "import", "vllm-bench", in, "-o", out); code != exitPass {
		t.Fatalf("import: exit %d: %s", code, stderr)
	}
	f, err := results.ReadFile(out)
	if err != nil {
		t.Fatalf("the imported file does not read back: %v", err)
	}
	if m := f.Environment.Model.Raw(); strings.ContainsAny(m, "\n\x1b\u202e") || !strings.Contains(m, "::error title=Forged::") {
		t.Errorf("model recorded as %q", m)
	}
	if md := selfCompare(t, out); !strings.Contains(md, "Forged") {
		t.Errorf("the model id is not in the report at all:\n%s", md)
	}
}

// selfCompare compares the results file at path with itself, checks that
// nothing it printed or wrote acts (checkPublished), and returns its
// markdown report.
func selfCompare(t *testing.T, path string) string {
	t.Helper()
	md := filepath.Join(t.TempDir(), "report.md")
	code, stdout, stderr := gateCLI(t, "compare", path, path, "--markdown", md)
	b, _ := os.ReadFile(md)
	h := hostileRun{code: code, stdout: "::add-mask::registered-by-llmgate\n" + stdout, stderr: stderr, markdown: string(b)}
	h.checkPublished(t)
	return string(b)
}

// The probes: run, scenario and assert names, messages, conditions and
// environment fields of a results file from elsewhere (a baseline, a
// --results shard, a merge input) reached every sink raw. Such a file is
// refused on read, naming the field, and the refusal prints nothing it
// holds.
func TestHostileResultsFilesAreRefused(t *testing.T) {
	gateNotActions(t)
	good := filepath.Join(t.TempDir(), "good.json")
	if code, _, stderr := gateCLI(t, "import", "vllm-bench", "../../testdata/vllmbench/summary.json", "-o", good); code != exitPass {
		t.Fatal(stderr)
	}
	raw, _ := os.ReadFile(good)
	for _, field := range []string{"name", "scenario", "message", "condition", "vllm_version", "description"} {
		var doc map[string]any
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		run := doc["runs"].([]any)[0].(map[string]any)
		switch field {
		case "name", "scenario":
			run[field] = hostileText
		case "message", "condition":
			run["asserts"] = []any{map[string]any{"name": "a", "passed": false, "condition": "ttft.p95 < 1", field: hostileText}}
		case "vllm_version":
			doc["environment"].(map[string]any)[field] = hostileText
		case "description":
			doc["suite"].(map[string]any)[field] = hostileText
		}
		bad := filepath.Join(t.TempDir(), "bad.json")
		b, _ := json.Marshal(doc)
		if err := os.WriteFile(bad, b, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"compare", bad, good}, {"compare", good, bad}, {"report", bad, "-o", filepath.Join(t.TempDir(), "r.html")}, {"merge", bad, "-o", filepath.Join(t.TempDir(), "m.json")}} {
			code, stdout, stderr := gateCLI(t, args...)
			if code != exitUsage || !strings.Contains(stderr, "invalid results file") {
				t.Errorf("%s in %v: exit %d, %s", field, args[0], code, stderr)
			}
			h := hostileRun{code: code, stdout: "::add-mask::registered-by-llmgate\n" + stdout, stderr: stderr}
			h.checkPublished(t)
			if strings.Contains(stderr, "<img") || strings.Contains(stderr, "\u202e") {
				t.Errorf("%s: the refusal quotes the file: %s", field, stderr)
			}
		}
	}
}
