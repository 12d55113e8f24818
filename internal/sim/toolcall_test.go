package sim

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestToolCallStream asks for a named tool's call and reads the stream as
// a client does: after the role chunk, a chunk with the call's index, id,
// type and function name, then argument pieces under index 0 that join
// into JSON following the tool's parameters, and finish_reason
// "tool_calls"; the whole answer carries the call in message.tool_calls.
func TestToolCallStream(t *testing.T) {
	_, url := startSim(t, mustArgs(t, "--profile", "tiny"))
	body := `{"model": "llmgate/tiny-sim", "messages": [{"role": "user", "content": "weather?"}], "max_tokens": 200, "stream": %s,
 "tools": [{"type": "function", "function": {"name": "other"}}, {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}, "required": ["city", "days"]}}}],
 "tool_choice": {"type": "function", "function": {"name": "get_weather"}}}`
	resp, err := http.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(strings.Replace(body, "%s", "true", 1)))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	type delta struct {
		Role      string `json:"role"`
		ToolCalls []struct {
			Index    *int   `json:"index"`
			ID       string `json:"id"`
			Type     string `json:"type"`
			Function struct {
				Name      string  `json:"name"`
				Arguments *string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	}
	var heads []string
	var args strings.Builder
	finish := ""
	for _, line := range strings.Split(string(raw), "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var c struct {
			Choices []struct {
				Delta        delta   `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			t.Fatalf("chunk %s: %v", data, err)
		}
		for _, ch := range c.Choices {
			if ch.FinishReason != nil {
				finish = *ch.FinishReason
			}
			for _, tc := range ch.Delta.ToolCalls {
				if tc.Index == nil || *tc.Index != 0 {
					t.Errorf("a tool-call delta without index 0: %s", data)
				}
				if tc.Function.Name != "" {
					if tc.Function.Arguments != nil || !strings.HasPrefix(tc.ID, "chatcmpl-tool-") || tc.Type != "function" {
						t.Errorf("head delta %s: want an id, type function, a name and no arguments", data)
					}
					heads = append(heads, tc.Function.Name)
				} else if tc.Function.Arguments != nil {
					if len(heads) == 0 {
						t.Errorf("arguments before the call's head: %s", data)
					}
					args.WriteString(*tc.Function.Arguments)
				}
			}
		}
	}
	var got struct {
		City *string `json:"city"`
		Days *int    `json:"days"`
	}
	if len(heads) != 1 || heads[0] != "get_weather" || finish != "tool_calls" || json.Unmarshal([]byte(args.String()), &got) != nil || got.City == nil || got.Days == nil {
		t.Fatalf("heads %v, arguments %q, finish %q: want one get_weather call with a city and days, tool_calls\n%s", heads, args.String(), finish, raw)
	}
	resp, err = http.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(strings.Replace(body, "%s", "false", 1)))
	if err != nil {
		t.Fatal(err)
	}
	var whole struct {
		Choices []struct {
			Message struct {
				ToolCalls []struct {
					Function struct{ Name, Arguments string } `json:"function"`
				} `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
	}
	err = json.NewDecoder(resp.Body).Decode(&whole)
	resp.Body.Close()
	if err != nil || len(whole.Choices) != 1 || len(whole.Choices[0].Message.ToolCalls) != 1 || whole.Choices[0].Message.ToolCalls[0].Function.Arguments != args.String() || whole.Choices[0].FinishReason != "tool_calls" {
		t.Errorf("whole answer %+v (%v): want the same call", whole, err)
	}
}
