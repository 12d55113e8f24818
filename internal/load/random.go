package load

import "github.com/llmgate/llmgate/runspec"

// randomWorkload sends prompts of random token ids with exact lengths to
// /v1/completions (random words when Chat or text prompts are asked for,
// sized by the run's calibration), lengths spread by RangeRatio.
type randomWorkload struct {
	w    runspec.Workload
	key  promptKey
	b    bodyMaker
	text bool // text prompts on /v1/completions
	lens lengths
}

func (rw *randomWorkload) next(s slot) *request {
	r := rng(rw.key, 1, s.item())
	in := length(r, rw.w.InputTokens, rw.w.RangeRatio)
	out := length(r, rw.w.OutputTokens, rw.w.RangeRatio)
	var req *request
	switch {
	case rw.w.Chat:
		req = rw.b.chat([]message{{Role: "user", Content: rw.lens.prompt(r, in)}}, out, nil)
	case rw.text:
		req = rw.b.completion(rw.lens.prompt(r, in), out)
	default:
		req = rw.b.completion(tokenIDs(r, in), out)
	}
	req.wantIn = in
	return req
}

func (rw *randomWorkload) calibration() *calibrationTarget {
	if !rw.w.Chat && !rw.text {
		return nil
	}
	return &calibrationTarget{chat: rw.w.Chat, lens: &rw.lens}
}

func (rw *randomWorkload) useText() bool {
	if rw.w.Chat {
		return false
	}
	rw.text = true
	return true
}
