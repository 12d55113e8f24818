package report

import (
	"strconv"
	"strings"

	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/untrusted"
)

// runSlices are the slices of r's requests that reports show: its first
// and later conversation turns, its input-length buckets, then its mix
// members and stages.
func runSlices(r *results.Run) []results.Slice {
	if r.Status == results.StatusFailed {
		return nil
	}
	var out []results.Slice
	if t := r.Summary.Turns; t != nil {
		out = append(out, t.First, t.Later)
	}
	out = append(out, r.Summary.LengthBuckets...)
	return append(out, partSlices(r)...)
}

// sliceCells are a slice's cells after the run's name: slice (a bucket's
// name and its lengths, "long ≥ 512 tok"), ok, failed,
// mean input tokens, TTFT p50 and p95, E2EL p95; "-" for latencies a
// slice has no sample of (no completed request, or only empty answers: no
// TTFT).
func sliceCells(s results.Slice) []string {
	ms := func(st results.Stats, v float64) string {
		if st.N == 0 {
			return "-"
		}
		return fmtMs(v)
	}
	label := s.Label
	if s.Name != "" {
		label = s.Name + " " + s.Label // the name asserts and tolerances use
	}
	return []string{label, strconv.Itoa(s.Requests.Completed), strconv.Itoa(s.Requests.Failed), fmtNum(s.InputTokensMean),
		ms(s.TTFT, s.TTFT.P50), ms(s.TTFT, s.TTFT.P95), ms(s.E2EL, s.E2EL.P95)}
}

var sliceHeader = []string{"run", "slice", "ok", "failed", "in tok", "TTFT p50", "TTFT p95", "E2EL p95"}

// writeSlices adds the table of the runs' slices, when any run has some.
func writeSlices(b *strings.Builder, f *results.File) {
	rows := sliceRows(f)
	if len(rows) == 0 {
		return
	}
	t := &table{left: map[int]bool{1: true}}
	t.add(sliceHeader...)
	for _, r := range rows {
		t.add(r...)
	}
	b.WriteString("\n" + strings.ToLower(slicesTitle(f)[:1]) + slicesTitle(f)[1:] + ":\n")
	_ = t.write(b) // a strings.Builder does not fail
}

// sliceRows are the rows of the slices table: each run's name and its
// slices' cells.
func sliceRows(f *results.File) [][]string {
	var rows [][]string
	for i := range f.Runs {
		r := &f.Runs[i]
		for _, s := range runSlices(r) {
			rows = append(rows, append([]string{r.Name}, sliceCells(s)...))
		}
	}
	return rows
}

// mdSlices is the Markdown table of the current runs' slices.
func mdSlices(m *mdBuilder, cur *results.File) {
	var rows []string
	for i := range cur.Runs {
		r := &cur.Runs[i]
		for _, s := range runSlices(r) {
			cells := sliceCells(s)
			cells[0] = untrusted.Markdown(cells[0])
			rows = append(rows, "| "+untrusted.Markdown(r.Name)+" | "+strings.Join(cells, " | ")+" |")
		}
	}
	if len(rows) == 0 {
		return
	}
	lines := append([]string{"**" + slicesTitle(cur) + "**", "", "| " + strings.Join(sliceHeader, " | ") + " |", "|---|---|---:|---:|---:|---:|---:|---:|"}, rows...)
	m.block(append(lines, "")...)
}
