package sim

import (
	"fmt"
	"strings"
	"sync"
)

// Tokenizer is the simulator's deterministic stand-in for a model's
// tokenizer. Its vocabulary is fixed by the vocabulary size: 256 byte tokens,
// a few special and punctuation pieces, common English words, then made-up
// syllable words up to the size. Any text round-trips exactly
// (Detokenize(Tokenize(s)) == s) and every id below the size has a text.
type Tokenizer struct {
	pieces     []string
	index      map[string]int
	wordStart  int // first id of the common words (" w", "w" pairs)
	synthStart int // first id of the made-up words
	maxPiece   int
}

// Special token ids (Llama 3 style names; the simulator's own numbering).
const (
	tokBOS = 256 + iota
	tokEOS
	tokStartHeader
	tokEndHeader
	tokEOT
)

var specialPieces = []string{"<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"}

// templatePieces are the words of the chat template (its roles and its
// system preamble) as pieces of their own, so that the template is about
// as many tokens as Llama 3.1's.
var templatePieces = []string{"user", "assistant", "Cutting", " Knowledge", " Date", " December", "Today", " Jul", " 26", "202"}

// systemPreamble is what Llama 3.1's chat template writes first in the
// system message of every conversation (its default date).
const systemPreamble = "Cutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024"

// Multi-character punctuation pieces, mostly for JSON.
var punctPieces = []string{
	"\n\n", "{\"", "\":", "\",", "\":\"", "\",\"", "\"}", "},", "},{", "[{", "}]", "\":[", "\":{", " \"", "\n", ". ", ", ",
	"true", "false", "null", "00", "000", "10", "20", "100", "...", "--",
}

var commonWords = dedupe(strings.Fields(`the of and to in is was for that on as with by it at from this be are or his an
which have had not were but they her she their one all been has its more also first new can who after two when would
there time about other into only may some over than out up most what years such these many then city him used them
while during where world between both three under made well year state later because since known through being
following well season including part against high number school called each film same those national war united early
during use long under second however several local system following team around river four until small work people life
data model token server request stream answer latency queue batch cache value result order test`))

func dedupe(words []string) []string {
	seen := map[string]bool{}
	out := words[:0]
	for _, w := range words {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// syllables of the made-up words: 14 consonants x 5 vowels.
const consonants, vowels = "bdfgklmnprstvz", "aeiou"

func syllableWord(k int) string {
	n := 2
	if k >= 70*70 {
		k -= 70 * 70
		n = 3
	}
	var b strings.Builder
	b.WriteByte(' ')
	digits := make([]int, n)
	for i := n - 1; i >= 0; i-- {
		digits[i] = k % 70
		k /= 70
	}
	for _, d := range digits {
		b.WriteByte(consonants[d/5])
		b.WriteByte(vowels[d%5])
	}
	return b.String()
}

var (
	tokMu      sync.Mutex
	tokenizers = map[int]*Tokenizer{}
)

// NewTokenizer returns the tokenizer for a vocabulary of vocab ids (at least
// 2,000). Tokenizers are cached: the same size gives the same instance.
func NewTokenizer(vocab int) *Tokenizer {
	if vocab < 2000 {
		vocab = 2000
	}
	tokMu.Lock()
	defer tokMu.Unlock()
	if t := tokenizers[vocab]; t != nil {
		return t
	}
	t := &Tokenizer{pieces: make([]string, 0, vocab), index: make(map[string]int, vocab)}
	add := func(s string) {
		id := len(t.pieces)
		t.pieces = append(t.pieces, s)
		if _, dup := t.index[s]; !dup {
			t.index[s] = id
		}
		if len(s) > t.maxPiece {
			t.maxPiece = len(s)
		}
	}
	for b := 0; b < 256; b++ {
		add(string([]byte{byte(b)}))
	}
	for _, s := range specialPieces {
		add(s)
	}
	for _, s := range punctPieces {
		add(s)
	}
	t.wordStart = len(t.pieces)
	for _, w := range commonWords {
		add(" " + w)
		add(w)
	}
	t.synthStart = len(t.pieces)
	for k := 0; len(t.pieces) < vocab-len(templatePieces); k++ {
		if w := syllableWord(k); t.index[w] == 0 { // skip made-up words that are real ones
			add(w)
		}
	}
	// last, so that every other id keeps the text it had before they were added
	for _, s := range templatePieces {
		add(s)
	}
	tokenizers[vocab] = t
	return t
}

// Size is the vocabulary size.
func (t *Tokenizer) Size() int { return len(t.pieces) }

// Piece is the text of one token id ("" when out of range).
func (t *Tokenizer) Piece(id int) string {
	if id < 0 || id >= len(t.pieces) {
		return ""
	}
	return t.pieces[id]
}

// Tokenize splits text into token ids by greedy longest match. Special-token
// texts in the input are treated as plain text, as tokenizers do by default.
func (t *Tokenizer) Tokenize(text string) []int {
	ids := make([]int, 0, len(text)/4+1)
	for i := 0; i < len(text); {
		n := min(t.maxPiece, len(text)-i)
		for ; n > 1; n-- {
			if id, ok := t.index[text[i:i+n]]; ok && id >= 256+len(specialPieces) {
				ids = append(ids, id)
				break
			}
		}
		if n <= 1 {
			ids = append(ids, int(text[i]))
			n = 1
		}
		i += n
	}
	return ids
}

// Detokenize joins the texts of ids; an id outside the vocabulary is an error.
func (t *Tokenizer) Detokenize(ids []int) (string, error) {
	var b strings.Builder
	for _, id := range ids {
		if id < 0 || id >= len(t.pieces) {
			return "", fmt.Errorf("token id %d is out of vocabulary (size %d)", id, len(t.pieces))
		}
		b.WriteString(t.pieces[id])
	}
	return b.String(), nil
}

// word maps a random number to a space-led word token: one in four a common
// English word, the rest made-up words. Generated text draws from these.
func (t *Tokenizer) word(r uint64) int {
	if r%4 == 0 {
		return t.wordStart + 2*int((r/4)%uint64(len(commonWords)))
	}
	return t.synthStart + int((r/4)%uint64(len(t.pieces)-t.synthStart))
}

// checkIDs reports the first id outside the vocabulary.
func (t *Tokenizer) checkIDs(ids []int) error {
	for _, id := range ids {
		if id < 0 || id >= len(t.pieces) {
			return fmt.Errorf("token id %d is out of vocabulary (size %d)", id, len(t.pieces))
		}
	}
	return nil
}

// chatMessage is one message of a chat request, content already flattened.
type chatMessage struct{ role, content string }

// chatTokens applies a chat template as long as Llama 3.1's: BOS, then
// the system header, the preamble Llama 3.1 writes into every system
// message ("Cutting Knowledge Date: ...") and the request's own system
// message if it starts with one, then per message header(role), content
// and EOT, then the assistant header. Every conversation starts with the
// same 30 or so tokens (at least one full 16-token block), which a prefix
// cache counts as hits, as vLLM's does for a real template.
func (t *Tokenizer) chatTokens(msgs []chatMessage) []int {
	ids := []int{tokBOS, tokStartHeader}
	ids = append(ids, t.Tokenize("system")...)
	ids = append(ids, tokEndHeader)
	system := "\n\n" + systemPreamble + "\n\n"
	if len(msgs) > 0 && msgs[0].role == "system" {
		system += msgs[0].content
		msgs = msgs[1:]
	}
	ids = append(ids, t.Tokenize(system)...)
	ids = append(ids, tokEOT)
	for _, m := range msgs {
		ids = append(ids, tokStartHeader)
		ids = append(ids, t.Tokenize(m.role)...)
		ids = append(ids, tokEndHeader)
		ids = append(ids, t.Tokenize("\n\n"+m.content)...)
		ids = append(ids, tokEOT)
	}
	ids = append(ids, tokStartHeader)
	ids = append(ids, t.Tokenize("assistant")...)
	ids = append(ids, tokEndHeader)
	ids = append(ids, t.Tokenize("\n\n")...)
	return ids
}

// TemplatePrefix is how many tokens every conversation's prompt starts
// with, the same whatever its first user message (what /tokenize of two
// different messages shares).
func (t *Tokenizer) TemplatePrefix() int {
	a := t.chatTokens([]chatMessage{{role: "user", content: "alpha"}})
	b := t.chatTokens([]chatMessage{{role: "user", content: "omega"}})
	n := 0
	for n < min(len(a), len(b)) && a[n] == b[n] {
		n++
	}
	return n
}
