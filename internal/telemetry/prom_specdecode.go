package telemetry

import (
	"strconv"

	dto "github.com/prometheus/client_model/go"

	"github.com/llmgate/llmgate/results"
)

// vLLM's speculative-decoding counters (vllm/v1/spec_decode/metrics.py),
// exported only when the server runs with --speculative-config, each with
// the labels model_name and engine; the exposition adds _total, which
// lookup tolerates either way. The per-position counter has a position
// label, "0" for the first draft token.
const (
	specDraftsName      = "vllm:spec_decode_num_drafts"
	specDraftTokensName = "vllm:spec_decode_num_draft_tokens"
	specAcceptedName    = "vllm:spec_decode_num_accepted_tokens"
	specPerPosName      = "vllm:spec_decode_num_accepted_tokens_per_pos"
)

// SpecDecodeSnapshot is one scrape of the speculative-decoding counters,
// summed across engines: drafts (one per request per step that had draft
// tokens), draft tokens proposed, draft tokens accepted, and accepted
// tokens by draft position (nil when the page has no per-position
// counter).
type SpecDecodeSnapshot struct {
	Drafts, DraftTokens, Accepted float64
	PerPosition                   []float64
}

// parseSpecDecode reads the counters from a parsed page; nil when it has
// not all three of the totals (the server decodes without speculation),
// or one of them is not a token count.
func parseSpecDecode(fams map[string]*dto.MetricFamily) *SpecDecodeSnapshot {
	var sp SpecDecodeSnapshot
	for _, c := range []struct {
		name string
		v    *float64
	}{{specDraftsName, &sp.Drafts}, {specDraftTokensName, &sp.DraftTokens}, {specAcceptedName, &sp.Accepted}} {
		v, _, ok, _ := lookup(fams, []string{c.name}, add, results.LimitTokens)
		if !ok {
			return nil
		}
		*c.v = v
	}
	sp.PerPosition = perPosition(fams)
	return &sp
}

// perPosition sums the per-position counter's samples by their position
// label across engines; nil when the page has none, or a sample has no
// position that is a small whole number or a value that is not a token
// count.
func perPosition(fams map[string]*dto.MetricFamily) []float64 {
	f, ok := fams[specPerPosName+"_total"]
	if !ok {
		if f, ok = fams[specPerPosName]; !ok {
			return nil
		}
	}
	var out []float64
	for _, m := range f.GetMetric() {
		ps, ok := label(m, "position")
		if !ok {
			return nil
		}
		p, err := strconv.Atoi(ps)
		if err != nil || p < 0 {
			return nil
		}
		v, ok := sampleValue(m)
		if !ok || results.LimitTokens.Problem(v) != "" {
			return nil
		}
		if p >= results.MaxSpecPositions {
			continue
		}
		for len(out) <= p {
			out = append(out, 0)
		}
		out[p] += v
	}
	return out
}

// specDecodeFrom is the window's speculative decoding over a run's
// scrapes, from the first that had the counters to the last; nil when
// fewer than two had them, no draft was made between them, or a counter
// went back (the server restarted).
func specDecodeFrom(snaps []ServerSnapshot) *results.SpecDecode {
	var first, last *SpecDecodeSnapshot
	for i := range snaps {
		if sp := snaps[i].SpecDecode; sp != nil {
			if first == nil {
				first = sp
			} else {
				last = sp
			}
		}
	}
	if first == nil || last == nil {
		return nil
	}
	d, dt, a := last.Drafts-first.Drafts, last.DraftTokens-first.DraftTokens, last.Accepted-first.Accepted
	if d < 0 || dt < 0 || a < 0 {
		return nil
	}
	// a position the first scrape lacks counted nothing before it
	var perPos []float64
	if len(last.PerPosition) >= len(first.PerPosition) {
		perPos = make([]float64, len(last.PerPosition))
		for i, v := range last.PerPosition {
			if i < len(first.PerPosition) {
				v -= first.PerPosition[i]
			}
			if v < 0 {
				perPos = nil
				break
			}
			perPos[i] = v
		}
	}
	return results.NewSpecDecode(d, dt, a, perPos)
}
