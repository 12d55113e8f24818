package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
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

// --fail-rate fails about that fraction of requests, deterministically
// (counted, not timed: the simulator runs at --time-scale 0.1).
func TestFailRate(t *testing.T) {
	count := func() int {
		_, base := startSim(t, mustArgs(t, "--profile", "tiny", "--fail-rate", "0.3", "--seed", "3", "--time-scale", "0.1"))
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

// --invalid-structured-rate cuts about that fraction of structured answers
// off half-way, chosen from the seed and the request: the same requests
// break again on a second server, the cut answers are not JSON, the others
// still validate, and the responses stay well-formed (200, finish "stop").
// Nothing is timed: the simulator runs at --time-scale 0.1.
func TestInvalidStructuredRate(t *testing.T) {
	schema := map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}, "age": map[string]any{"type": "integer"}}, "required": []string{"name", "age"}}
	broken := func() []int {
		_, base := startSim(t, mustArgs(t, "--profile", "tiny", "--invalid-structured-rate", "0.3", "--seed", "5", "--time-scale", "0.1"))
		var out []int
		for i := 0; i < 40; i++ {
			var resp struct {
				Choices []struct {
					Message      struct{ Content string } `json:"message"`
					FinishReason string                   `json:"finish_reason"`
				} `json:"choices"`
			}
			body := map[string]any{
				"messages":        []map[string]string{{"role": "user", "content": fmt.Sprintf("person %d", i)}},
				"response_format": map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "p", "schema": schema}},
			}
			if code := postJSON(t, base+"/v1/chat/completions", body, &resp); code != 200 || len(resp.Choices) != 1 {
				t.Fatalf("request %d: status %d, %d choices", i, code, len(resp.Choices))
			}
			c := resp.Choices[0]
			if c.FinishReason != "stop" {
				t.Errorf("request %d: finish_reason %q, want stop", i, c.FinishReason)
			}
			var v struct {
				Name *string `json:"name"`
				Age  *int    `json:"age"`
			}
			if err := json.Unmarshal([]byte(c.Message.Content), &v); err != nil {
				if c.Message.Content == "" || c.Message.Content[0] != '{' {
					t.Errorf("request %d: a broken answer should be a cut-off object: %q", i, c.Message.Content)
				}
				out = append(out, i)
			} else if v.Name == nil || v.Age == nil {
				t.Errorf("request %d: an unbroken answer misses a required field: %s", i, c.Message.Content)
			}
		}
		return out
	}
	a, b := broken(), broken()
	t.Logf("broken answers: %v", a)
	if len(a) < 5 || len(a) > 20 {
		t.Errorf("%d of 40 answers broken with --invalid-structured-rate 0.3, want about 12", len(a))
	}
	if !slices.Equal(a, b) {
		t.Errorf("different answers broken with the same seed: %v vs %v", a, b)
	}
}
