package load

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// chunkView is a comparable view of a chunk.
type chunkView struct {
	Choices    bool
	Output     bool
	Reasoning  bool
	Answer     bool
	Finished   bool
	Finish     string // the finish_reason
	Text       string
	Usage      bool
	Prompt     int
	Completion int
	// ReasoningTokens is usage's reasoning count, nil when not reported.
	ReasoningTokens *int
	Err             string
}

func view(c *chunk) chunkView {
	var reasoning *int
	if c.hasReasoningTokens {
		reasoning = &c.reasoningTokens
	}
	return chunkView{Choices: c.choices, Output: c.output, Reasoning: c.reasoning, Answer: c.answer, Finished: c.finished, Finish: string(c.finishReason), Text: string(c.appendText(nil)), Usage: c.usage,
		Prompt: c.promptTokens, Completion: c.completionTokens, ReasoningTokens: reasoning, Err: string(c.errMsg)}
}

func TestParseChunk(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    chunkView
		wantErr bool
		slow    bool // only encoding/json parses it
	}{
		// a vLLM completions chunk with continuous usage
		{name: "completion", in: `{"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":" hello","logprobs":null,"finish_reason":null,"stop_reason":null}],"usage":{"prompt_tokens":5,"total_tokens":7,"completion_tokens":2}}`,
			want: chunkView{Choices: true, Output: true, Text: " hello", Usage: true, Prompt: 5, Completion: 2}},
		// a chat chunk: the text is delta.content
		{name: "chat", in: `{"id":"c","choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"},"logprobs":null,"finish_reason":null}]}`,
			want: chunkView{Choices: true, Output: true, Text: "Hi"}},
		// the role-only first chat chunk has choices but no content
		{name: "role only", in: `{"choices":[{"index":0,"delta":{"role":"assistant"}}]}`, want: chunkView{Choices: true}},
		// null content is no text
		{name: "null content", in: `{"choices":[{"delta":{"content":null}}]}`, want: chunkView{Choices: true}},
		// the final usage-only chunk has empty choices
		{name: "usage only", in: `{"id":"c","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":9,"total_tokens":12}}`,
			want: chunkView{Usage: true, Prompt: 3, Completion: 9}},
		// usage: null is no usage
		{name: "usage null", in: `{"choices":[{"text":"a"}],"usage":null}`, want: chunkView{Choices: true, Output: true, Text: "a"}},
		// escaped text is unescaped when asked for
		{name: "escaped", in: `{"choices":[{"text":"a\"b\\c\n\u00e9"}]}`, want: chunkView{Choices: true, Output: true, Text: "a\"b\\c\n\u00e9"}},
		// an escaped backslash right before the closing quote ends the string
		{name: "backslash end", in: `{"id":"x\\","choices":[{"text":"q\\"}]}`, want: chunkView{Choices: true, Output: true, Text: `q\`}},
		// an escaped quote does not end the string
		{name: "escaped quote", in: `{"id":"a\"}b","choices":[{"text":"\"\\\""}]}`, want: chunkView{Choices: true, Output: true, Text: `"\"`}},
		// several choices: the first one's text
		{name: "n=2", in: `{"choices":[{"text":"a"},{"text":"b","x":[1,{"y":"]"}]}]}`, want: chunkView{Choices: true, Output: true, Text: "a"}},
		// nested objects and arrays elsewhere are skipped
		{name: "nested", in: ` { "x" : {"a":[1,2,{"b":"}"}]}, "choices" : [ { "text" : "t" } ] } `, want: chunkView{Choices: true, Output: true, Text: "t"}},
		// an error object in the stream is reported
		{name: "error", in: `{"error":{"message":"overloaded","code":503}}`, want: chunkView{Err: `{"message":"overloaded","code":503}`}},
		// vLLM before 0.10.1 sends errors flat, as {"object":"error",...}
		{name: "flat error", in: `{"object":"error","message":"boom","type":"BadRequestError","param":null,"code":400}`,
			want: chunkView{Err: `{"object":"error","message":"boom","type":"BadRequestError","param":null,"code":400}`}},
		// text that looks like JSON keys and an empty choices array stays text
		{name: "keys in text", in: `{"choices":[{"text":"\"choices\":[],\"usage\":{\"prompt_tokens\":9}"}]}`,
			want: chunkView{Choices: true, Output: true, Text: `"choices":[],"usage":{"prompt_tokens":9}`}},
		// multi-byte UTF-8 passes through raw
		{name: "utf-8", in: `{"choices":[{"delta":{"content":"héllo, 世界 🙂"}}]}`, want: chunkView{Choices: true, Output: true, Text: "héllo, 世界 🙂"}},
		// empty choices with spaces inside, usage before choices
		{name: "spaced empty", in: `{"usage":{"completion_tokens":3,"prompt_tokens":1},"choices":[ ]}`, want: chunkView{Usage: true, Prompt: 1, Completion: 3}},
		// an empty text has choices (vLLM counts it for TTFT) but no output
		{name: "empty text", in: `{"choices":[{"text":""}]}`, want: chunkView{Choices: true}},
		// a finish_reason says the answer ended; a stop at the first token
		// ends it with no text (vLLM, a stop sequence matched at once)
		{name: "stop, no text", in: `{"choices":[{"index":0,"text":"","finish_reason":"stop","stop_reason":"\n"}]}`, want: chunkView{Choices: true, Finished: true, Finish: "stop"}},
		{name: "length with text", in: `{"choices":[{"index":0,"delta":{"content":"end"},"finish_reason":"length"}]}`, want: chunkView{Choices: true, Output: true, Finished: true, Finish: "length", Text: "end"}},
		// an escaped finish_reason goes the slow way, unescaped
		{name: "escaped finish", in: `{"choices":[{"text":"a","finish_reason":"len\u0067th"}]}`, want: chunkView{Choices: true, Output: true, Finished: true, Finish: "length", Text: "a"}, slow: true},
		{name: "finish not a string", in: `{"choices":[{"text":"a","finish_reason":5}]}`, want: chunkView{Choices: true, Output: true, Text: "a"}},
		// an early role chunk with empty content carries no output
		{name: "role empty content", in: `{"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`, want: chunkView{Choices: true}},
		// reasoning content is generated output (both field names servers use)
		{name: "reasoning_content", in: `{"choices":[{"delta":{"content":null,"reasoning_content":"Let me"}}]}`, want: chunkView{Choices: true, Output: true, Reasoning: true}},
		{name: "reasoning", in: `{"choices":[{"delta":{"reasoning":"hm"}}]}`, want: chunkView{Choices: true, Output: true, Reasoning: true}},
		// vLLM versions that send both names at once
		{name: "both reasoning names", in: `{"choices":[{"delta":{"reasoning_content":"hm","reasoning":"hm"}}]}`, want: chunkView{Choices: true, Output: true, Reasoning: true}},
		// the chunk where reasoning ends and the answer starts carries both
		{name: "reasoning and content", in: `{"choices":[{"delta":{"reasoning_content":" so","content":"Yes"}}]}`, want: chunkView{Choices: true, Output: true, Reasoning: true, Answer: true, Text: "Yes"}},
		// usage's completion_tokens_details says how many tokens were reasoning
		{name: "reasoning tokens", in: `{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":9,"completion_tokens_details":{"reasoning_tokens":7,"audio_tokens":0}}}`,
			want: chunkView{Usage: true, Prompt: 3, Completion: 9, ReasoningTokens: ptr(7)}},
		{name: "reasoning tokens null", in: `{"choices":[],"usage":{"completion_tokens":9,"completion_tokens_details":{"reasoning_tokens":null}}}`,
			want: chunkView{Usage: true, Completion: 9}},
		{name: "details null", in: `{"choices":[],"usage":{"completion_tokens":9,"completion_tokens_details":null}}`,
			want: chunkView{Usage: true, Completion: 9}},
		{name: "details not an object", in: `{"choices":[],"usage":{"completion_tokens":9,"completion_tokens_details":"x"}}`, wantErr: true},
		{name: "empty reasoning", in: `{"choices":[{"delta":{"reasoning_content":""}}]}`, want: chunkView{Choices: true}},
		// tool-call arguments are generated output; a bare tool-call name is not
		{name: "tool args", in: `{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"x\""}}]}}]}`, want: chunkView{Choices: true, Output: true}, slow: true},
		{name: "tool name only", in: `{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":""}}]}}]}`, want: chunkView{Choices: true}, slow: true},
		{name: "no tool calls", in: `{"choices":[{"delta":{"content":"a","tool_calls":[]}}]}`, want: chunkView{Choices: true, Output: true, Text: "a"}},
		// a text that is not a string is malformed
		{name: "text number", in: `{"choices":[{"text":5,"index":0}]}`, wantErr: true},
		// an escaped key goes the slow way and still parses
		{name: "escaped key", in: `{"choic\u0065s":[{"text":"z"}]}`, want: chunkView{Choices: true, Output: true, Text: "z"}, slow: true},
		// broken JSON is an error
		{name: "malformed", in: `{"choices":[{"text":"a"}`, wantErr: true},
		// trailing junk is an error
		{name: "trailing", in: `{"choices":[]} x`, wantErr: true},
		// not an object
		{name: "array", in: `[1,2]`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c chunk
			err := parseChunk([]byte(tt.in), &c)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if tt.want.Output && !tt.want.Reasoning {
				tt.want.Answer = true // output that is not reasoning is the answer
			}
			if diff := cmp.Diff(tt.want, view(&c)); diff != "" {
				t.Errorf("chunk (-want +got):\n%s", diff)
			}
			var fast chunk
			if err := parseChunkFast([]byte(tt.in), &fast); (err == nil) == tt.slow {
				t.Errorf("fast scanner: err = %v, want it to fail only for slow-path rows", err)
			} else if err == nil {
				if diff := cmp.Diff(tt.want, view(&fast)); diff != "" {
					t.Errorf("fast scanner (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestParseChunkAllocatesNothing(t *testing.T) {
	in := []byte(`{"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":" hello","logprobs":null,"finish_reason":null,"stop_reason":null}],"usage":{"prompt_tokens":5,"total_tokens":7,"completion_tokens":2}}`)
	var c chunk
	allocs := testing.AllocsPerRun(100, func() {
		if err := parseChunk(in, &c); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("parseChunk allocates %.0f times per chunk, want 0", allocs)
	}
}
