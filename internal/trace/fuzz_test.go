package trace

import (
	"strings"
	"testing"
)

// FuzzRead: no input makes Read panic, and what it accepts holds rows in
// time order with lengths within the limits and lines that exist.
func FuzzRead(f *testing.F) {
	for _, s := range []string{
		`{"timestamp": 0, "input_length": 1100, "output_length": 5, "hash_ids": [0, 1, 2]}`,
		"TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,374,44\n",
		`{"timestamp": 11, "prompt": "Tell me", "output_tokens": 9}` + "\n" + `{"timestamp": 1, "messages": [{"role": "user", "content": "Hi"}], "input_tokens": 3, "output_tokens": 1}`,
	} {
		for _, format := range Formats {
			f.Add(s, format)
		}
	}
	f.Fuzz(func(t *testing.T, in, format string) {
		tr, err := Read(strings.NewReader(in), format)
		if err != nil {
			return
		}
		lines := strings.Count(in, "\n") + 1
		for i, r := range tr.Rows {
			if i > 0 && r.At < tr.Rows[i-1].At {
				t.Fatalf("row %d at %v before row %d at %v", i, r.At, i-1, tr.Rows[i-1].At)
			}
			if r.Input < 1 || r.Input > MaxTokens || r.Output < 1 || r.Output > MaxTokens || r.Line < 1 || r.Line > lines || r.At < 0 {
				t.Fatalf("row %d: %+v", i, r)
			}
		}
		_ = Summarize(tr.Rows, 1)
	})
}
