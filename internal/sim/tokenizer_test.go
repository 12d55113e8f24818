package sim

import "testing"

func TestTokenizerRoundTrip(t *testing.T) {
	tok := NewTokenizer(32000)
	for _, s := range []string{
		"", "hello world", "The model streams tokens, one by one.", `{"a": [1, 2.5, "x\"y"]}`,
		"naïve café — 日本語 🙂", "  spaced\n\nlines\t", "<|eot_id|> is plain text here",
	} {
		ids := tok.Tokenize(s)
		got, err := tok.Detokenize(ids)
		if err != nil || got != s {
			t.Errorf("round trip of %q = %q, %v", s, got, err)
		}
	}
	if tok.Size() != 32000 {
		t.Errorf("Size = %d, want 32000", tok.Size())
	}
	// Every id has a text, and generated words re-tokenize to themselves.
	for r := uint64(0); r < 2000; r++ {
		id := tok.word(mix64(r))
		if p := tok.Piece(id); p == "" || p[0] != ' ' {
			t.Fatalf("word %d = %q, want a space-led word", id, p)
		}
		if got := tok.Tokenize(tok.Piece(id)); len(got) != 1 || got[0] != id {
			t.Fatalf("Tokenize(%q) = %v, want [%d]", tok.Piece(id), got, id)
		}
	}
	if _, err := tok.Detokenize([]int{32000}); err == nil {
		t.Errorf("out-of-vocabulary id accepted")
	}
	if NewTokenizer(32000) != tok {
		t.Errorf("tokenizers are not cached")
	}
}

// A multi-byte character split over byte tokens is never cut in a chunk.
func TestHoldBack(t *testing.T) {
	s := &Server{tok: NewTokenizer(32000)}
	ids := s.tok.Tokenize("aé日") // 'a', then 2 + 3 byte tokens
	tests := []struct {
		name string
		n    int // tokens produced so far
		want int // tokens that may be sent
	}{
		// Only the ASCII letter.
		{"ascii", 1, 1},
		// Half of é is held back.
		{"half e-acute", 2, 1},
		// A whole é goes out.
		{"whole e-acute", 3, 3},
		// Two thirds of 日 are held back.
		{"two thirds", 5, 3},
		// All of it.
		{"all", 6, 6},
	}
	for _, tc := range tests {
		if got := len(s.holdBack(ids[:tc.n], 0)); got != tc.want {
			t.Errorf("%s: holdBack sends %d tokens, want %d", tc.name, got, tc.want)
		}
	}
}
