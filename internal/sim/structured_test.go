package sim

import (
	"encoding/json"
	"testing"
)

// Schemas that would make a naive generator recurse forever or build a huge
// answer still give a bounded one (a request must not take the server down).
func TestStructuredAnswerIsBounded(t *testing.T) {
	tests := []struct {
		name   string
		schema string
	}{
		// two definitions that only refer to each other
		{name: "ref cycle", schema: `{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}}}`},
		// a tree that requires a child at every level
		{name: "endless tree", schema: `{"$ref":"#/$defs/n","$defs":{"n":{"type":"object","properties":{"c":{"$ref":"#/$defs/n"}},"required":["c"]}}}`},
		// absurd minimum sizes
		{name: "huge minimums", schema: `{"type":"array","minItems":1000000000,"items":{"type":"string","minLength":1000000000}}`},
	}
	tok := NewTokenizer(32000)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var schema any
			if err := json.Unmarshal([]byte(tt.schema), &schema); err != nil {
				t.Fatal(err)
			}
			ids, err := structuredAnswer(tok, schema, 7)
			if err != nil {
				t.Fatalf("structuredAnswer: %v", err)
			}
			text, _ := tok.Detokenize(ids)
			if !json.Valid([]byte(text)) {
				t.Errorf("answer is not JSON: %.200s", text)
			}
			if len(text) > maxItems*(maxString+8) {
				t.Errorf("answer is %d bytes long", len(text))
			}
		})
	}
}
