package report

import (
	"strings"

	"github.com/llmgate/llmgate/results"
)

// specHeader heads the table of the server's speculative decoding: the
// client's mean TPOT beside the acceptance figures vLLM logs, and the
// counts they come from.
var specHeader = []string{"run", "TPOT mean", "acceptance rate", "acceptance length", "by position", "drafts", "draft tokens", "accepted"}

// specCells are a run's cells after its name; nil for a run whose server
// did not decode speculatively (or exported no counters of it).
func specCells(r *results.Run) []string {
	m := r.Summary.Server
	if r.Status == results.StatusFailed || m == nil || m.SpecDecode == nil {
		return nil
	}
	sd := m.SpecDecode
	tpot := "-"
	if r.Summary.TPOT.N > 0 {
		tpot = fmtMs(r.Summary.TPOT.Mean)
	}
	pos := "-"
	if len(sd.PositionRates) > 0 {
		parts := make([]string, len(sd.PositionRates))
		for i, v := range sd.PositionRates {
			parts[i] = Value(v, results.Ratio)
		}
		pos = strings.Join(parts, " / ")
	}
	return []string{tpot, Value(sd.AcceptanceRate, results.Ratio), Value(sd.AcceptanceLength, results.Count), pos,
		Value(sd.Drafts, results.Count), Value(sd.DraftTokens, results.Count), Value(sd.AcceptedTokens, results.Count)}
}

// specCaption says what the figures are.
const specCaption = "the server's speculative decoding over the measured phase (vLLM's vllm:spec_decode_* counters: acceptance rate = accepted / draft tokens, length = 1 + accepted / drafts, the tokens a request gains per step; by position from draft position 0)"

// specSection is the speculative-decoding table.
var specSection = runSection{header: specHeader, cells: specCells, caption: specCaption, title: "**Speculative decoding**: " + specCaption}

func writeSpecDecode(b *strings.Builder, f *results.File) { specSection.write(b, f) }
func mdSpecDecode(m *mdBuilder, cur *results.File)        { specSection.markdown(m, cur) }
