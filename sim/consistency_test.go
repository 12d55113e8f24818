package sim

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
)

func postJSON(t *testing.T, url string, body any, out any) int {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if out != nil && resp.StatusCode == 200 {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatal(err)
		}
	}
	return resp.StatusCode
}

// /tokenize counts exactly what generation bills as prompt tokens, and
// /detokenize inverts it.
func TestTokenizeMatchesUsage(t *testing.T) {
	_, base := startSim(t, mustArgs(t, "--profile", "tiny"))
	text := "The quick brown fox, naïvely, jumps over 13 lazy dogs."
	var tok tokenizeResponse
	postJSON(t, base+"/tokenize", map[string]any{"prompt": text}, &tok)
	var comp completionResponse
	postJSON(t, base+"/v1/completions", map[string]any{"prompt": text, "max_tokens": 2}, &comp)
	if comp.Usage.PromptTokens != tok.Count {
		t.Errorf("completion prompt_tokens %d != /tokenize count %d", comp.Usage.PromptTokens, tok.Count)
	}
	var ids completionResponse
	postJSON(t, base+"/v1/completions", map[string]any{"prompt": tok.Tokens, "max_tokens": 2}, &ids)
	if ids.Usage.PromptTokens != len(tok.Tokens) {
		t.Errorf("token-id prompt of %d ids billed %d prompt tokens", len(tok.Tokens), ids.Usage.PromptTokens)
	}
	msgs := []map[string]string{{"role": "system", "content": "Be brief."}, {"role": "user", "content": text}}
	var chatTok tokenizeResponse
	postJSON(t, base+"/tokenize", map[string]any{"messages": msgs}, &chatTok)
	var chat chatResponse
	postJSON(t, base+"/v1/chat/completions", map[string]any{"messages": msgs, "max_tokens": 2}, &chat)
	if chat.Usage.PromptTokens != chatTok.Count {
		t.Errorf("chat prompt_tokens %d != /tokenize count %d", chat.Usage.PromptTokens, chatTok.Count)
	}
	var detok struct{ Prompt string }
	postJSON(t, base+"/detokenize", map[string]any{"tokens": tok.Tokens[1:]}, &detok)
	if detok.Prompt != text {
		t.Errorf("detokenize(tokenize(text)) = %q, want %q", detok.Prompt, text)
	}
}

// --fail-rate fails about that fraction of requests, deterministically.
func TestFailRate(t *testing.T) {
	count := func() int {
		_, base := startSim(t, mustArgs(t, "--profile", "tiny", "--fail-rate", "0.3", "--seed", "3"))
		failed := 0
		for i := 0; i < 200; i++ {
			if postJSON(t, base+"/v1/completions", map[string]any{"prompt": []int{1, 2, 3}, "max_tokens": 1}, nil) == 500 {
				failed++
			}
		}
		return failed
	}
	a, b := count(), count()
	if a < 40 || a > 80 {
		t.Errorf("%d of 200 requests failed with --fail-rate 0.3, want about 60", a)
	}
	if a != b {
		t.Errorf("failures differ between runs with the same seed: %d vs %d", a, b)
	}
}
