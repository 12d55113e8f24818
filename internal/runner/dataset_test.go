package runner

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/llmgate/llmgate/internal/suite"
	"github.com/llmgate/llmgate/results"
)

// TestOwnPromptsOnSimulator sends a JSONL file of prompts and messages to
// the simulator: every request completes with its row's answer length,
// and the prompt longer than max_prompt_tokens is left out.
func TestOwnPromptsOnSimulator(t *testing.T) {
	dir := t.TempDir()
	prompts := `{"prompt": "The quick brown fox jumps over the lazy dog", "output_tokens": 5}
{"messages": [{"role": "system", "content": "Answer in one word."}, {"role": "user", "content": "What colour is the sky?"}], "output_tokens": 9}
{"prompt": "` + longWords(400) + `", "output_tokens": 3}
`
	if err := os.WriteFile(filepath.Join(dir, "prompts.jsonl"), []byte(prompts), 0o644); err != nil {
		t.Fatal(err)
	}
	src := `simulator "sim" {
  profile = "tiny"
}
scenario "own" {
  target = simulator.sim
  workload {
    kind              = "dataset"
    file              = "prompts.jsonl"
    format            = "jsonl"
    max_prompt_tokens = 200
  }
  load {
    concurrency = 1
    requests    = 4
  }
}
`
	path := filepath.Join(dir, "suite.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s, diags := suite.Load(path, suite.Options{Getenv: func(string) string { return "" }})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	f, err := Run(context.Background(), s.Runnable(), Options{OutputPath: filepath.Join(dir, "results.json")})
	if err != nil {
		t.Fatal(err)
	}
	r := f.Runs[0]
	if r.Dataset == nil || r.Dataset.Dropped != 1 || r.Dataset.Method != results.CountTokenize {
		t.Errorf("dataset fit %+v, want the long prompt dropped, counted by /tokenize", r.Dataset)
	}
	l := r.Requests
	if l == nil || l.Len() != 4 || len(l.Failures) != 0 {
		t.Fatalf("request log %+v, want 4 requests that completed", l)
	}
	for i := range l.Len() {
		if out := l.OutputTokens[i]; out != 5 && out != 9 {
			t.Errorf("request %d answered %d tokens, want its row's 5 or 9", i, out)
		}
	}
}

func longWords(n int) string {
	b := make([]byte, 0, 6*n)
	for range n {
		b = append(b, "word "...)
	}
	return string(b[:len(b)-1])
}
