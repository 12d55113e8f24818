package sim

import (
	"encoding/json"
	"fmt"
	"math"
)

// Speculative decoding, as vLLM v1 runs it: each step, a request in its
// decode phase is scheduled with its last token and k draft tokens that a
// proposer guessed; the target model verifies all k+1 in the one step,
// accepts the drafts up to the first it rejects, and samples one token
// more (the bonus or the correction). A step thus gives a request 1 + a
// tokens, a the accepted drafts, for about the cost of one decode step
// (the k extra tokens add compute and their attention).
//
// The simulator's proposer costs nothing (n-gram drafting nearly does),
// and accepts draft position i, given every earlier one was, with one
// probability alpha, drawn from the seed and request: the per-position
// acceptance rates fall off as alpha, alpha^2, ... and alpha is chosen
// so that the rate vLLM reports (accepted / draft tokens) is the
// --spec-acceptance-rate asked for.

// DefaultSpecAcceptanceRate is the acceptance rate (accepted / draft
// tokens) of a simulator given --speculative-config without
// --spec-acceptance-rate: a made-up figure of the order EAGLE reaches on
// chat.
const DefaultSpecAcceptanceRate = 0.6

// MaxSpecTokens bounds num_speculative_tokens.
const MaxSpecTokens = 32

// specConfig is the part of vLLM's --speculative-config JSON the
// simulator reads; the method and the draft model are accepted and
// ignored.
type specConfig struct {
	Method               string `json:"method"`
	Model                string `json:"model"`
	NumSpeculativeTokens *int   `json:"num_speculative_tokens"`
}

// parseSpeculativeConfig reads --speculative-config: a JSON object with
// num_speculative_tokens, as vLLM takes it.
func parseSpeculativeConfig(s string) (int, error) {
	var sc specConfig
	if err := json.Unmarshal([]byte(s), &sc); err != nil {
		return 0, fmt.Errorf("flag --speculative-config: %q is not a JSON object: %v", s, err)
	}
	if sc.NumSpeculativeTokens == nil {
		return 0, fmt.Errorf(`flag --speculative-config: %q has no num_speculative_tokens (e.g. {"method": "ngram", "num_speculative_tokens": 3})`, s)
	}
	n := *sc.NumSpeculativeTokens
	if n < 1 || n > MaxSpecTokens {
		return 0, fmt.Errorf("flag --speculative-config: num_speculative_tokens %d must be from 1 to %d", n, MaxSpecTokens)
	}
	return n, nil
}

// specDecoder draws how many of a step's drafts the target accepts.
type specDecoder struct {
	k     int     // num_speculative_tokens
	alpha float64 // the probability of accepting a draft position given the earlier ones were
}

// newSpecDecoder is nil when the simulator does not speculate.
func newSpecDecoder(k int, rate float64) *specDecoder {
	if k <= 0 {
		return nil
	}
	return &specDecoder{k: k, alpha: alphaFor(k, rate)}
}

// alphaFor is the per-position probability whose expected acceptance rate
// over k drafts, (alpha + alpha^2 + ... + alpha^k) / k, is rate: found by
// bisection (the rate grows with alpha from 0 at 0 to 1 at 1).
func alphaFor(k int, rate float64) float64 {
	if rate <= 0 || rate >= 1 {
		return math.Max(0, math.Min(1, rate))
	}
	lo, hi := 0.0, 1.0
	for range 60 {
		mid := (lo + hi) / 2
		if expectedRate(k, mid) < rate {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// expectedRate is the mean accepted fraction of k drafts when each
// position is accepted with probability alpha given the earlier ones were.
func expectedRate(k int, alpha float64) float64 {
	sum, p := 0.0, 1.0
	for range k {
		p *= alpha
		sum += p
	}
	return sum / float64(k)
}

// draftLen is how many draft tokens r is scheduled with this step: k for
// a request in its decode phase (its last token sampled, not yet computed),
// fewer near its max_tokens or the model's context, none while it
// prefills.
func (sd *specDecoder) draftLen(r *request, maxModelLen int) int {
	if sd == nil || len(r.tokens) == r.promptLen || len(r.tokens)-r.computed != 1 {
		return 0
	}
	out := len(r.tokens) - r.promptLen
	left := min(r.maxTokens-out, maxModelLen-len(r.tokens)) - 1 // the step's own sampled token comes on top
	return max(0, min(sd.k, left))
}

// accepted draws how many of the n drafts of r's step at output position
// out the target accepts: the drafts up to the first rejected one. Each
// draw mixes the request's key, the position and the draft index in two
// rounds: one round over their XOR drew rates 0.1-0.2 low for the keys of
// some prompts (llmgate's calibrated chat prompts: 0.523 at 0.7).
func (sd *specDecoder) accepted(r *request, out, n int) int {
	for i := range n {
		u := float64(mix64(mix64(r.seedKey+uint64(out+1)*0x9e3779b97f4a7c15)+uint64(i+1)*0x9e3779b97f4a7c15)>>11) / float64(1<<53)
		if u >= sd.alpha {
			return i
		}
	}
	return n
}

// specStats are vLLM's speculative-decoding counters.
type specStats struct {
	drafts, draftTokens, accepted float64
	perPos                        []float64 // accepted tokens by draft position
}

// specDraftLocked counts one request's draft of n tokens of which a were
// accepted (stats lock held).
func (s *stats) specDraftLocked(n, a int) {
	sp := s.spec
	sp.drafts++
	sp.draftTokens += float64(n)
	sp.accepted += float64(a)
	for i := range a {
		sp.perPos[i]++
	}
}
