package sim

import (
	"testing"
)

// TestChatTemplateSharesABlock checks the chat template is as long as
// Llama 3.1's: every conversation starts with the same 25 to 30 tokens,
// at least one full 16-token block, and a system message goes after the
// preamble, as Llama 3.1's template puts it.
func TestChatTemplateSharesABlock(t *testing.T) {
	for _, vocab := range []int{32000, 128256} {
		tk := NewTokenizer(vocab)
		if n := tk.TemplatePrefix(); n < 25 || n > 30 {
			t.Errorf("vocab %d: template prefix %d tokens, want 25 to 30", vocab, n)
		}
		plain := tk.chatTokens([]chatMessage{{role: "user", content: "hi"}})
		sys := tk.chatTokens([]chatMessage{{role: "system", content: "be brief"}, {role: "user", content: "hi"}})
		for i := range 20 {
			if plain[i] != sys[i] {
				t.Fatalf("vocab %d: a system message changes token %d of the preamble", vocab, i)
			}
		}
		if len(sys) <= len(plain) {
			t.Errorf("vocab %d: the system message added no tokens", vocab)
		}
	}
}
