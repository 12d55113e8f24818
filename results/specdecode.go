package results

import (
	"fmt"
	"strconv"
)

// MaxSpecPositions is how many draft positions the per-position counter
// is read for, and how many have a metric of their own
// (server.spec_decode.position_0.acceptance_rate, ...): vLLM's
// num_speculative_tokens is a handful; a page with a higher position
// keeps its first MaxSpecPositions.
const MaxSpecPositions = 16

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

// NewSpecDecode derives the rates from a window's counts (the drafts,
// draft tokens, accepted tokens and accepted tokens by draft position the
// server counted in it); nil when the window held no draft (nothing was
// decoded speculatively).
func NewSpecDecode(drafts, draftTokens, accepted float64, perPos []float64) *SpecDecode {
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
	return NewSpecDecode(acc.Drafts+b.Drafts, acc.DraftTokens+b.DraftTokens, acc.AcceptedTokens+b.AcceptedTokens, perPos)
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
