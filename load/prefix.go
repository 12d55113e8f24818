package load

import "fmt"

// prefixWorkload sends prompts that start with one of PrefixGroups shared
// prefixes of PrefixTokens tokens (request n of a phase uses prefix n mod
// groups), followed by a unique suffix of InputTokens tokens: the shape that
// prefix caching serves. The prefixes are the run's own (they derive from
// its prompt key) and shared by its warmup and measured phases; nothing
// else is shared.
type prefixWorkload struct {
	w        Workload
	key      promptKey
	b        bodyMaker
	ids      [][]int
	texts    []string
	groups   int
	suffixIn int
}

func newPrefixWorkload(w Workload, key promptKey, b bodyMaker) (*prefixWorkload, error) {
	if w.PrefixTokens <= 0 {
		return nil, fmt.Errorf("prefix workload: prefix_tokens must be positive, got %d", w.PrefixTokens)
	}
	pw := &prefixWorkload{w: w, key: key, b: b, groups: max(w.PrefixGroups, 1)}
	for g := range pw.groups {
		r := rng(key, 2, uint64(g))
		if w.Chat {
			pw.texts = append(pw.texts, text(r, w.PrefixTokens))
		} else {
			pw.ids = append(pw.ids, tokenIDs(r, w.PrefixTokens))
		}
	}
	return pw, nil
}

func (pw *prefixWorkload) next(s slot) *request {
	r := rng(pw.key, 3, s.item())
	g := s.index % pw.groups
	in := length(r, pw.w.InputTokens, pw.w.RangeRatio)
	out := length(r, pw.w.OutputTokens, pw.w.RangeRatio)
	if pw.w.Chat {
		return pw.b.chat([]message{{Role: "user", Content: pw.texts[g] + " " + text(r, in)}}, out, nil)
	}
	prompt := make([]int, 0, pw.w.PrefixTokens+in)
	prompt = append(prompt, pw.ids[g]...)
	prompt = append(prompt, tokenIDs(r, in)...)
	return pw.b.completion(prompt, out)
}
