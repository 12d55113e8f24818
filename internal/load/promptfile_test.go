package load

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
)

// promptFileRun sends every entry of a prompt file once against a fake
// server that records what it gets, and returns the bodies, sorted by
// their prompt's text.
func promptFileRun(t *testing.T, format, text string, w runspec.Workload, requests int) ([]map[string]any, *Result) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "prompts."+format)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	f := newFakeServer(t)
	w.Kind, w.DatasetPath, w.DatasetFormat = runspec.WorkloadDataset, p, format
	cfg := Config{Load: runspec.Load{Concurrency: 1, Requests: requests, Seed: 1, Workload: w}, BaseURL: f.URL(), Model: "m", RunName: "own"}
	res, err := Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	bodies := f.seen()
	sort.Slice(bodies, func(i, j int) bool { return promptText(bodies[i]) < promptText(bodies[j]) })
	return bodies, res
}

// promptText is a body's prompt, or its messages' contents joined.
func promptText(b map[string]any) string {
	if p, ok := b["prompt"].(string); ok {
		return p
	}
	var parts []string
	for _, m := range b["messages"].([]any) {
		parts = append(parts, m.(map[string]any)["content"].(string))
	}
	return strings.Join(parts, "|")
}

// TestPromptFileSentAsWritten: a prompt goes to /v1/completions as its
// text, messages to the chat API as they are, each asking for its
// output_tokens or else the workload's.
func TestPromptFileSentAsWritten(t *testing.T) {
	const jsonl = `{"prompt": "a: Once upon a time", "output_tokens": 7}
{"messages": [{"role": "system", "content": "b: Be brief."}, {"role": "user", "content": "Hi"}], "output_tokens": 3}
{"prompt": "c: no length"}
`
	bodies, _ := promptFileRun(t, "jsonl", jsonl, runspec.Workload{OutputTokens: 5}, 3)
	if len(bodies) != 3 {
		t.Fatalf("%d requests, want 3", len(bodies))
	}
	type sent struct {
		Text      string
		Chat      bool
		MaxTokens float64
	}
	var got []sent
	for _, b := range bodies {
		_, chat := b["messages"]
		got = append(got, sent{promptText(b), chat, b["max_tokens"].(float64)})
	}
	want := []sent{{"a: Once upon a time", false, 7}, {"b: Be brief.|Hi", true, 3}, {"c: no length", false, 5}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("sent (-want +got):\n%s", d)
	}
	if roles := bodies[1]["messages"].([]any); roles[0].(map[string]any)["role"] != "system" || roles[1].(map[string]any)["role"] != "user" {
		t.Errorf("messages sent as %v", roles)
	}
	// chat = true sends a prompt as the user's message; without any
	// output_tokens an answer is 128 tokens
	bodies, _ = promptFileRun(t, "csv", "prompt\n\"Say \"\"hi\"\", then stop\"\n", runspec.Workload{Chat: true}, 1)
	msgs, _ := bodies[0]["messages"].([]any)
	if len(msgs) != 1 || msgs[0].(map[string]any)["content"] != `Say "hi", then stop` || bodies[0]["max_tokens"].(float64) != 128 {
		t.Errorf("csv prompt with chat sent as %v", bodies[0])
	}
}

// TestPromptFileBounds: max_prompt_tokens and max_total_tokens leave out
// the entries longer than they allow (counted at a token per 4 bytes on a
// server without /tokenize), and say so.
func TestPromptFileBounds(t *testing.T) {
	// prompts of 8, 40 and 80 bytes: 2, 10 and 20 tokens; answers of 4
	csv := "prompt,output_tokens\n" + strings.Repeat("a", 8) + ",4\n" + strings.Repeat("b", 40) + ",4\n" + strings.Repeat("c", 80) + ",4\n"
	bodies, res := promptFileRun(t, "csv", csv, runspec.Workload{MaxPromptTokens: 15}, 4)
	for _, b := range bodies {
		if strings.HasPrefix(promptText(b), "c") {
			t.Errorf("a prompt of 20 tokens was sent past max_prompt_tokens = 15")
		}
	}
	if d := res.Dataset; d == nil || d.Dropped != 1 || d.MaxPromptTokens != 15 || d.Method != results.CountEstimate {
		t.Errorf("fit %+v, want 1 dropped by max_prompt_tokens 15, estimated", d)
	}
	bodies, res = promptFileRun(t, "csv", csv, runspec.Workload{MaxTotalTokens: 10}, 4)
	for _, b := range bodies {
		if !strings.HasPrefix(promptText(b), "a") {
			t.Errorf("%q sent past max_total_tokens = 10", promptText(b)[:1])
		}
	}
	if res.Dataset.Dropped != 2 {
		t.Errorf("fit %+v, want 2 dropped", res.Dataset)
	}
}
