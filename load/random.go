package load

// randomWorkload sends prompts of random token ids with exact lengths to
// /v1/completions (or random words over chat when Chat is set), lengths
// spread by RangeRatio.
type randomWorkload struct {
	w   Workload
	key promptKey
	b   bodyMaker
}

func (rw *randomWorkload) next(s slot) *request {
	r := rng(rw.key, 1, s.item())
	in := length(r, rw.w.InputTokens, rw.w.RangeRatio)
	out := length(r, rw.w.OutputTokens, rw.w.RangeRatio)
	if rw.w.Chat {
		return rw.b.chat([]message{{Role: "user", Content: text(r, in)}}, out, nil)
	}
	return rw.b.completion(tokenIDs(r, in), out)
}
