package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// lengthServer answers completions of token-id prompts with lengths other
// than asked: every answer ends at stopAt tokens (an EOS) whatever
// ignore_eos and min_tokens say (Ollama, other simulators), and a prompt is
// counted (and served) only up to context tokens, as a server that
// truncates prompts to its context does. Each answer takes ttft, so that
// the client's users are busy.
type lengthServer struct {
	stopAt, context int
	ttft            time.Duration
}

func (s *lengthServer) start(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(srv.Close)
	return srv.URL
}

func (s *lengthServer) handle(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/v1/models":
		io.WriteString(w, `{"object":"list","data":[{"id":"length-model","object":"model"}]}`)
		return
	case "/v1/completions":
	default:
		http.NotFound(w, r)
		return
	}
	var body struct {
		MaxTokens int   `json:"max_tokens"`
		Prompt    []int `json:"prompt"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body.MaxTokens <= 0 {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	in := min(len(body.Prompt), s.context)
	out := min(body.MaxTokens, s.stopAt)
	w.Header().Set("Content-Type", "text/event-stream")
	time.Sleep(s.ttft)
	for i := 1; i <= out; i++ {
		finish := "null"
		if i == out {
			finish = `"stop"`
		}
		fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"text\":\" w\",\"finish_reason\":%s}],\"usage\":{\"prompt_tokens\":%d,\"completion_tokens\":%d}}\n\n", finish, in, i)
	}
	io.WriteString(w, "data: [DONE]\n\n")
}

// TestRunInvalidForItsOwnReason runs two scenarios against a server whose
// answers end at 25 tokens and whose context is 4096 tokens: both
// runs are invalid, each for its own reason, and the closing lines of `llmgate run` and the gate's
// markdown (its step summary and PR comment) give each run's own reason and
// what to do, not that the load generator fell behind.
func TestRunInvalidForItsOwnReason(t *testing.T) {
	gateNotActions(t)
	url := (&lengthServer{stopAt: 25, context: 4096, ttft: 20 * time.Millisecond}).start(t)
	dir := t.TempDir()
	code, stdout, stderr := runCLI(t, "run", "testdata/run/lengths.hcl", "--target", url, "-o", filepath.Join(dir, "run.json"))
	if code != exitInfra {
		t.Fatalf("exit %d, want 3\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	md := filepath.Join(dir, "gate.md")
	gcode, gout, gerr := gateCLI(t, "gate", "testdata/run/lengths.hcl", "--target", url, "--baseline", "none", "-o", filepath.Join(dir, "gate.json"), "--markdown", md)
	if gcode != exitInfra {
		t.Fatalf("gate: exit %d, want 3\nstdout:\n%s\nstderr:\n%s", gcode, gout, gerr)
	}
	b, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("llmgate run, closing lines:\n%s", stderr)
	for name, out := range map[string]string{"run's closing lines": stderr, "gate's markdown": string(b)} {
		for _, want := range []string{
			"short_answers", "mean answer length 25.0 tokens is -60.9% off the requested 64", "ignore_eos = false", "self_check { length }",
			"long_prompts", "mean prompt length 4096.0 tokens is -31.7% off the requested 6000", "at most 4096 of up to 6000 asked", "truncate prompts to its context",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("%s lack %q:\n%s", name, want, out)
			}
		}
		if strings.Contains(out, "could not keep to its plan") {
			t.Errorf("%s blame the load generator:\n%s", name, out)
		}
		for _, line := range strings.Split(out, "\n") {
			if strings.Contains(line, "long_prompts") && strings.Contains(line, "answer length") {
				t.Errorf("%s give short_answers' reason to long_prompts: %s", name, line)
			}
		}
	}
}
