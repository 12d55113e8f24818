package diagnose

import "github.com/llmgate/llmgate/results"

// SpecDecodeFell is the trap of a speculative-decoding server whose
// drafts are accepted less often than in the baseline: each step then
// gives a request fewer tokens, and TPOT rises with no change of its own
// (a new draft model, a new sampler, another workload, a kernel that
// changed the target's numerics).
const SpecDecodeFell Kind = "spec_decode_acceptance_fell"

// Thresholds of SpecDecodeFell.
const (
	// SpecTPOTRise is how much the mean TPOT must have risen over the
	// baseline's, as a fraction (0.05: 5 %).
	SpecTPOTRise = 0.05
	// SpecRateDrop is how far the acceptance rate must have fallen below
	// the baseline's (absolute: 0.05 is 0.70 to 0.65).
	SpecRateDrop = 0.05
)

// Against returns the hints that fire for run r against the same run in
// the baseline: a TPOT that regressed as the acceptance rate of the
// server's speculative decoding fell. The evidence is the current run's
// (Changes links it to the baseline's), with the TPOT ratio the
// acceptance lengths alone explain (the baseline's length over the
// current one: a step's cost unchanged, fewer tokens a step).
func Against(r, base *results.Run) []Hint {
	if r == nil || base == nil || r.Status == results.StatusFailed || base.Status == results.StatusFailed {
		return nil
	}
	s, b := &r.Summary, &base.Summary
	if s.Server == nil || b.Server == nil || s.Server.SpecDecode == nil || b.Server.SpecDecode == nil {
		return nil
	}
	cur, was := s.Server.SpecDecode, b.Server.SpecDecode
	if s.TPOT.N == 0 || b.TPOT.N == 0 || !(b.TPOT.Mean > 0) || s.TPOT.Mean < (1+SpecTPOTRise)*b.TPOT.Mean || cur.AcceptanceRate > was.AcceptanceRate-SpecRateDrop {
		return nil
	}
	return []Hint{{Kind: SpecDecodeFell, Run: r.Name,
		What: "TPOT rose as the server's speculative decoding accepted fewer draft tokens than in the baseline: each step gives a request fewer tokens",
		Next: "look at what changed the drafts' fit: the draft model or method (--speculative-config), the target's numerics (a kernel, quantization), the sampling (temperature), or the workload's text",
		Evidence: []Evidence{
			{Name: "tpot.mean", Value: s.TPOT.Mean},
			{Name: "server.spec_decode.acceptance_rate", Value: cur.AcceptanceRate},
			{Name: "server.spec_decode.acceptance_length", Value: cur.AcceptanceLength},
			{Name: "TPOT ratio the acceptance lengths explain", Value: was.AcceptanceLength / cur.AcceptanceLength},
		}}}
}

// FileAgainst returns File's hints of cur, then Against's for each of its
// runs that base has by name.
func FileAgainst(cur, base *results.File) []Hint {
	hints := File(cur)
	if cur == nil || base == nil {
		return hints
	}
	byName := map[string]*results.Run{}
	for i := range base.Runs {
		byName[base.Runs[i].Name] = &base.Runs[i]
	}
	for i := range cur.Runs {
		hints = append(hints, Against(&cur.Runs[i], byName[cur.Runs[i].Name])...)
	}
	return hints
}
