package report

import (
	"strings"

	"github.com/llmgate/llmgate/results"
)

// splitHeader heads the table of the server's latency split: the client's
// mean TTFT beside the server's mean queue and prefill time, what is left
// of the TTFT (network, the server's HTTP front end and tokenizer, the
// client), and the split's other figures.
var splitHeader = []string{"run", "TTFT mean", "queue mean", "prefill mean", "other", "queue p95", "prefill p95", "decode mean", "inference mean"}

// splitCells are a run's cells after its name; nil for a run whose server
// exported no latency histogram. A phase the server lacks is "-", and so
// is "other" unless the client's TTFT and both its terms are there.
func splitCells(r *results.Run) []string {
	m := r.Summary.Server
	if r.Status == results.StatusFailed || m == nil || (m.QueueTime == nil && m.PrefillTime == nil && m.DecodeTime == nil && m.InferenceTime == nil) {
		return nil
	}
	cell := func(l *results.ServerLatency, v func(*results.ServerLatency) float64) string {
		if l == nil {
			return "-"
		}
		return fmtMs(v(l))
	}
	// a quantile in the first bucket is known only to be at most its bound
	quantile := func(l *results.ServerLatency, v func(*results.ServerLatency) float64) string {
		if l != nil && l.Bounded(v(l)) {
			return "≤" + fmtMs(l.FirstBucket)
		}
		return cell(l, v)
	}
	mean := func(l *results.ServerLatency) float64 { return l.Mean }
	p95 := func(l *results.ServerLatency) float64 { return l.P95 }
	ttft, other := "-", "-"
	if s := &r.Summary; s.TTFT.N > 0 {
		ttft = fmtMs(s.TTFT.Mean)
		if m.QueueTime != nil && m.PrefillTime != nil {
			other = fmtMs(s.TTFT.Mean - m.QueueTime.Mean - m.PrefillTime.Mean)
		}
	}
	return []string{ttft, cell(m.QueueTime, mean), cell(m.PrefillTime, mean), other,
		quantile(m.QueueTime, p95), quantile(m.PrefillTime, p95), cell(m.DecodeTime, mean), cell(m.InferenceTime, mean)}
}

// splitCaption says what the split's figures are.
const splitCaption = "the server's latency split (its own histograms over the measured phase; means exact, p95 estimated within the buckets, ≤ where it lies in the first; other = client TTFT − queue − prefill: network, the server's front end, the client)"

// splitSection is the table of the server's latency split.
var splitSection = runSection{header: splitHeader, cells: splitCells, caption: splitCaption, title: "**Server latency split**: " + splitCaption}

func writeServerSplit(b *strings.Builder, f *results.File) { splitSection.write(b, f) }
func mdServerSplit(m *mdBuilder, cur *results.File)        { splitSection.markdown(m, cur) }
