package report

import (
	"strconv"
	"strings"

	"github.com/llmgate/llmgate/results"
)

// reasoningHeader heads the table of reasoning runs: TTFT (first token of
// any kind) beside TTFO (first answer token), and the reasoning and
// answer tokens per request.
var reasoningHeader = []string{"run", "TTFT p50", "TTFO p50", "TTFO p95", "reasoning tok", "p95", "answer tok", "unanswered"}

// reasoningCells are a reasoning run's cells after its name; nil for a run
// in which nothing reasoned. A latency with no value is "-"; reasoning
// tokens counted from the stream are marked "≥" where the server's usage
// reported none for some requests (a chunk may carry the end of the
// reasoning and the start of the answer).
func reasoningCells(r *results.Run) []string {
	s := &r.Summary
	rs := s.Reasoning
	if r.Status == results.StatusFailed || rs == nil {
		return nil
	}
	ms := func(st results.Stats, v float64) string {
		if st.N == 0 {
			return "-"
		}
		return fmtMs(v)
	}
	counted := ""
	if rs.Counted > 0 {
		counted = "≥"
	}
	return []string{ms(s.TTFT, s.TTFT.P50), ms(s.TTFO, s.TTFO.P50), ms(s.TTFO, s.TTFO.P95),
		counted + fmtNum(rs.Tokens.Mean), counted + fmtNum(rs.Tokens.P95), fmtNum(rs.AnswerTokens.Mean), strconv.Itoa(rs.Unanswered)}
}

// reasoningSection is the table of the runs whose model reasoned.
var reasoningSection = runSection{header: reasoningHeader, cells: reasoningCells,
	caption: "reasoning (TTFT: first token, TTFO: first answer token; tokens are means per request)",
	title:   "**Reasoning** (TTFT: first token, TTFO: first answer token)"}

func writeReasoning(b *strings.Builder, f *results.File) { reasoningSection.write(b, f) }
func mdReasoning(m *mdBuilder, cur *results.File)        { reasoningSection.markdown(m, cur) }
