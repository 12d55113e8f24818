package load

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzParseChunk checks that the allocation-free scanner and the
// encoding/json fallback agree on every input: when the scanner accepts a
// chunk, encoding/json accepts it too and reads the same chunk; and a chunk
// that is not valid JSON is never accepted (it is a protocol error, not a
// token).
//
//	go test ./internal/load -run '^$' -fuzz FuzzParseChunk -fuzztime 3m
func FuzzParseChunk(f *testing.F) {
	for _, seed := range []string{
		`{"id":"cmpl-1","object":"text_completion","choices":[{"index":0,"text":" hello","finish_reason":null}],"usage":{"prompt_tokens":5,"total_tokens":7,"completion_tokens":2}}`,
		`{"id":"c","choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"}}]}`,
		`{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":9}}`,
		`{"choices":[{"text":"a\"b\\c\n\u00e9"}],"usage":null}`,
		`{"error":{"message":"overloaded","code":503}}`,
		`{"object":"error","message":"boom","code":400}`,
		`{"choices":[{"text":"a"},{"text":"b","x":[1,{"y":"]"}]}]}`,
		`{"usage":{"prompt_tokens":1},"usage":null}`,
		`{"Usage":{"prompt_tokens":1}}`,
		`{"choices":[{"text":"\ud800"}]}`,
		`{"x":tru,"choices":[]}`,
		"{\"choices\":[{\"text\":\"a\x01b\"}]}",
		`{"choices":[{"delta":{"content":"x","content":"y"}}]}`,
		`{"choices":[{"delta":{"role":"assistant","content":"","reasoning_content":"hm"}}]}`,
		`{"choices":[{"delta":{"reasoning":null,"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}}]}`,
		`{"choices":[{"text":"","finish_reason":"stop"},{"finish_reason":1}]}`,
		`{"choices":[{"text":"a","Finish_Reason":"stop","finish_reason":null}]}`,
		`{"choices":[{"delta":{"reasoning":" so","content":"Yes"}}],"usage":{"completion_tokens":4,"completion_tokens_details":{"reasoning_tokens":3}}}`,
		`{"choices":[],"usage":{"completion_tokens_details":{"reasoning_tokens":null,"Reasoning_tokens":2}}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var got, slow chunk
		err := parseChunk(b, &got)
		slowErr := parseChunkSlow(b, &slow)
		switch {
		case err == nil && !json.Valid(b):
			t.Fatalf("accepted invalid JSON %q as %+v", b, view(&got))
		case (err == nil) != (slowErr == nil):
			t.Fatalf("%q: parseChunk error %v, encoding/json error %v", b, err, slowErr)
		case err != nil:
			return
		}
		var fast chunk
		if parseChunkFast(b, &fast) == nil {
			if diff := cmp.Diff(view(&slow), view(&fast)); diff != "" {
				t.Fatalf("%q: scanner and encoding/json disagree (-json +scanner):\n%s", b, diff)
			}
		}
	})
}
