package results

import (
	"fmt"
	"strconv"

	dto "github.com/prometheus/client_model/go"
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

// MaxSpecPositions is how many draft positions the per-position counter
// is read for, and how many have a metric of their own
// (server.spec_decode.position_0.acceptance_rate, ...): vLLM's
// num_speculative_tokens is a handful; a page with a higher position
// keeps its first MaxSpecPositions.
const MaxSpecPositions = 16

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
		v, _, ok, _ := lookup(fams, []string{c.name}, add, LimitTokens)
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
		if !ok || LimitTokens.Problem(v) != "" {
			return nil
		}
		if p >= MaxSpecPositions {
			continue
		}
		for len(out) <= p {
			out = append(out, 0)
		}
		out[p] += v
	}
	return out
}

// SpecDecode is the server's speculative decoding over a run's measured
// phase, from the counters' deltas between the first and the last scrape:
// the drafts, draft tokens and accepted tokens counted in the window, and
// what vLLM's own log reports from them: the acceptance rate (accepted /
// draft tokens), the mean acceptance length (1 + accepted / drafts: the
// tokens a request gains per step, the bonus token counted) and the
// acceptance rate by draft position (accepted at the position / drafts).
type SpecDecode struct {
	Drafts           float64 `json:"drafts"`
	DraftTokens      float64 `json:"draft_tokens"`
	AcceptedTokens   float64 `json:"accepted_tokens"`
	AcceptanceRate   float64 `json:"acceptance_rate"`
	AcceptanceLength float64 `json:"acceptance_length"`
	// AcceptedPerPosition are the accepted tokens by draft position, and
	// PositionRates each over Drafts; absent when the server exports no
	// per-position counter.
	AcceptedPerPosition []float64 `json:"accepted_per_position,omitempty"`
	PositionRates       []float64 `json:"position_acceptance_rates,omitempty"`
}

// newSpecDecode derives the rates from the window's counts; nil when the
// window held no draft (nothing was decoded speculatively).
func newSpecDecode(drafts, draftTokens, accepted float64, perPos []float64) *SpecDecode {
	if !(drafts > 0) || !(draftTokens > 0) {
		return nil
	}
	// more accepted than drafted is a broken exporter: at most all were
	accepted = min(accepted, draftTokens)
	sd := &SpecDecode{Drafts: drafts, DraftTokens: draftTokens, AcceptedTokens: accepted,
		AcceptanceRate: accepted / draftTokens, AcceptanceLength: 1 + accepted/drafts}
	if len(perPos) > 0 {
		sd.AcceptedPerPosition = perPos
		sd.PositionRates = make([]float64, len(perPos))
		for i, a := range perPos {
			sd.PositionRates[i] = min(a, drafts) / drafts
		}
	}
	return sd
}

// specDecodeFrom is the window's speculative decoding over a run's
// scrapes, from the first that had the counters to the last; nil when
// fewer than two had them, no draft was made between them, or a counter
// went back (the server restarted).
func specDecodeFrom(snaps []ServerSnapshot) *SpecDecode {
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
	return newSpecDecode(d, dt, a, perPos)
}

// mergeSpecDecode adds a block's speculative decoding to the blocks' so
// far: the counts summed, the rates derived again (exact).
func mergeSpecDecode(acc, b *SpecDecode) *SpecDecode {
	if b == nil {
		return acc
	}
	if acc == nil {
		c := *b
		return &c
	}
	var perPos []float64
	if len(acc.AcceptedPerPosition) > 0 && len(b.AcceptedPerPosition) > 0 {
		perPos = make([]float64, max(len(acc.AcceptedPerPosition), len(b.AcceptedPerPosition)))
		for i := range perPos {
			if i < len(acc.AcceptedPerPosition) {
				perPos[i] += acc.AcceptedPerPosition[i]
			}
			if i < len(b.AcceptedPerPosition) {
				perPos[i] += b.AcceptedPerPosition[i]
			}
		}
	}
	return newSpecDecode(acc.Drafts+b.Drafts, acc.DraftTokens+b.DraftTokens, acc.AcceptedTokens+b.AcceptedTokens, perPos)
}

// PositionRate is the acceptance rate at draft position p (0 the first
// draft token), and false when the run has none there.
func (sd *SpecDecode) PositionRate(p int) (float64, bool) {
	if sd == nil || p < 0 || p >= len(sd.PositionRates) {
		return 0, false
	}
	return sd.PositionRates[p], true
}

// specDecodeMetrics are the namespace's names of speculative decoding:
// server.spec_decode.acceptance_rate, .acceptance_length, and
// server.spec_decode.position_<p>.acceptance_rate for each position.
func specDecodeMetrics() []Metric {
	get := func(f func(*SpecDecode) (float64, bool)) func(*Summary) (float64, bool) {
		return func(s *Summary) (float64, bool) {
			if s.Server == nil || s.Server.SpecDecode == nil {
				return 0, false
			}
			return f(s.Server.SpecDecode)
		}
	}
	ms := []Metric{
		{Name: "server.spec_decode.acceptance_rate", Family: "server", Stat: StatValue, Unit: Ratio, Better: HigherIsBetter, specDecode: true,
			get: get(func(sd *SpecDecode) (float64, bool) { return sd.AcceptanceRate, true })},
		{Name: "server.spec_decode.acceptance_length", Family: "server", Stat: StatValue, Unit: Count, Better: HigherIsBetter, specDecode: true,
			get: get(func(sd *SpecDecode) (float64, bool) { return sd.AcceptanceLength, true })},
	}
	for p := range MaxSpecPositions {
		ms = append(ms, Metric{Name: SpecPositionMetric(p), Family: "server", Stat: StatValue, Unit: Ratio, Better: HigherIsBetter, specDecode: true,
			get: get(func(sd *SpecDecode) (float64, bool) { return sd.PositionRate(p) })})
	}
	return ms
}

// SpecPositionMetric is the name of the acceptance rate at draft position
// p (0 the first draft token, as vLLM's position label counts).
func SpecPositionMetric(p int) string {
	return "server.spec_decode.position_" + strconv.Itoa(p) + ".acceptance_rate"
}

// specDecode checks a results file's speculative decoding: counts of
// tokens, rates within [0, 1], a length of at least 1, no more positions
// than are read.
func (c *checker) specDecode(sd *SpecDecode) {
	const f = "summary.server.spec_decode"
	c.value(f+".drafts", sd.Drafts, LimitTokens)
	c.value(f+".draft_tokens", sd.DraftTokens, LimitTokens)
	c.value(f+".accepted_tokens", sd.AcceptedTokens, LimitTokens)
	c.value(f+".acceptance_rate", sd.AcceptanceRate, LimitRatio)
	c.value(f+".acceptance_length", sd.AcceptanceLength, LimitTokens)
	if !(sd.AcceptanceLength >= 1) {
		c.fail(fmt.Sprintf("%s.acceptance_length = %v: it counts the bonus token, so it is at least 1", f, sd.AcceptanceLength))
	}
	if len(sd.AcceptedPerPosition) > MaxSpecPositions || len(sd.PositionRates) > MaxSpecPositions {
		c.fail(fmt.Sprintf("%s holds more than %d draft positions", f, MaxSpecPositions))
		return
	}
	for i, v := range sd.AcceptedPerPosition {
		c.value(fmt.Sprintf("%s.accepted_per_position[%d]", f, i), v, LimitTokens)
	}
	for i, v := range sd.PositionRates {
		c.value(fmt.Sprintf("%s.position_acceptance_rates[%d]", f, i), v, LimitRatio)
	}
}
