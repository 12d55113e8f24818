package load

import (
	"fmt"
	"strings"

	"github.com/llmgate/llmgate/runspec"
)

// prefixWorkload sends prompts that start with one of PrefixGroups shared
// prefixes of PrefixTokens tokens (request n of a phase uses prefix n mod
// groups), followed by a unique suffix of InputTokens tokens: the shape that
// prefix caching serves. The prefixes are the run's own (they derive from
// its prompt key) and shared by its warmup and measured phases; nothing
// else is shared.
type prefixWorkload struct {
	w        runspec.Workload
	key      promptKey
	b        bodyMaker
	ids      [][]int
	texts    []string
	groups   int
	suffixIn int
	text     bool // text prompts on /v1/completions
	lens     lengths
}

func newPrefixWorkload(w runspec.Workload, key promptKey, b bodyMaker) (*prefixWorkload, error) {
	if w.PrefixTokens <= 0 {
		return nil, fmt.Errorf("prefix workload: prefix_tokens must be positive, got %d", w.PrefixTokens)
	}
	pw := &prefixWorkload{w: w, key: key, b: b, groups: max(w.PrefixGroups, 1), text: w.TextPrompts}
	pw.makePrefixes()
	return pw, nil
}

// makePrefixes draws the shared prefixes: token ids, or words sized by the
// calibration for text prompts.
func (pw *prefixWorkload) makePrefixes() {
	pw.ids, pw.texts = nil, nil
	for g := range pw.groups {
		r := rng(pw.key, 2, uint64(g))
		if pw.w.Chat || pw.text {
			pw.texts = append(pw.texts, pw.lens.text(r, pw.w.PrefixTokens))
		} else {
			pw.ids = append(pw.ids, tokenIDs(r, pw.w.PrefixTokens))
		}
	}
}

func (pw *prefixWorkload) calibration() *calibrationTarget {
	if !pw.w.Chat && !pw.text {
		return nil
	}
	return &calibrationTarget{chat: pw.w.Chat, lens: &pw.lens, done: pw.makePrefixes}
}

func (pw *prefixWorkload) useText() bool {
	if pw.w.Chat {
		return false
	}
	pw.text = true
	pw.makePrefixes()
	return true
}

func (pw *prefixWorkload) next(s slot) *request {
	r := rng(pw.key, 3, s.item())
	g := s.index % pw.groups
	in := length(r, pw.w.InputTokens, pw.w.RangeRatio)
	out := length(r, pw.w.OutputTokens, pw.w.RangeRatio)
	var req *request
	switch {
	case pw.w.Chat:
		req = pw.b.chat([]message{{Role: "user", Content: joinWords(pw.texts[g], pw.lens.prompt(r, in))}}, out, nil)
	case pw.text:
		req = pw.b.completion(joinWords(pw.texts[g], pw.lens.prompt(r, in)), out)
	default:
		prompt := make([]int, 0, pw.w.PrefixTokens+in)
		prompt = append(prompt, pw.ids[g]...)
		prompt = append(prompt, tokenIDs(r, in)...)
		req = pw.b.completion(prompt, out)
	}
	req.wantIn = pw.w.PrefixTokens + in
	return req
}

// joinWords joins two texts of words with one space (calibrated texts
// start with theirs).
func joinWords(a, b string) string {
	if strings.HasPrefix(b, " ") {
		return a + b
	}
	return a + " " + b
}
