package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/untrusted"
)

// RunTable writes one aligned row per run of f: name, status, requests
// ok (with the empty answers among them) and failed, request and output-token throughput, TTFT p50/p95, TPOT p50,
// E2EL p95 (milliseconds), the server's KV cache usage (max), requests
// waiting and running (max), preemptions and prefix-cache hit rate, and
// asserts passed/total; when a run's GPUs were sampled, the GPUs' mean
// utilisation, the most memory a GPU used and their mean total power too.
// Runs that were not measured (status failed) show "-" for their numbers.
func RunTable(w io.Writer, f *results.File) error {
	t := &table{left: map[int]bool{1: true}}
	head, rows := runTable(f)
	t.add(head...)
	for _, row := range rows {
		t.add(row...)
	}
	if err := t.write(w); err != nil {
		return err
	}
	var b strings.Builder
	for _, r := range capacityRuns(f) {
		fmt.Fprintf(&b, "\n%s: %s\n%s", untrusted.Line(r.Name), CapacityLine(r.Capacity), ProbeTable(r.Capacity))
	}
	writeShortfalls(&b, f)
	writeSlices(&b, f)
	writeReasoning(&b, f)
	writeServerSplit(&b, f)
	writeSpecDecode(&b, f)
	writeToolCalls(&b, f)
	startupSection.write(&b, f)
	writeGPUFailures(&b, f)
	writeKnees(&b, f)
	writeHints(&b, f)
	_, err := io.WriteString(w, b.String())
	return err
}

// runTable is the run table's heads and one row of cells per run of f,
// for the terminal, markdown and HTML to lay out.
func runTable(f *results.File) (head []string, rows [][]string) {
	gpus := hasGPUFigures(f)
	head = []string{"run", "status", "ok", "failed", "req/s", "out tok/s", "TTFT p50", "TTFT p95", "TPOT p50", "E2EL p95",
		"KV max", "waiting", "running", "preempt", "hit rate"}
	if gpus {
		head = append(head, gpuHeads...)
	}
	for i := range f.Runs {
		r := &f.Runs[i]
		s := &r.Summary
		var row []string
		if r.Status == results.StatusFailed {
			row = append([]string{r.Name, string(r.Status)}, strings.Split(strings.Repeat("-", len(head)-2), "")...)
		} else {
			row = []string{r.Name, string(r.Status),
				okCell(s.Requests), strconv.Itoa(s.Requests.Failed),
				fmtNum(s.Throughput.Requests), fmtNum(s.Throughput.OutputTokens),
				fmtMs(s.TTFT.P50), fmtMs(s.TTFT.P95), fmtMs(s.TPOT.P50), fmtMs(s.E2EL.P95),
				kvCell(s.Server), waitingCell(s.Server), runningCell(r.ServerSeries), preemptCell(s.Server), hitCell(s.Server)}
			if gpus {
				row = append(row, gpuCells(s.GPU)...)
			}
		}
		rows = append(rows, append(row, assertCell(r.Asserts)))
	}
	return append(head, "asserts"), rows
}

// okCell is the completed requests, with how many of them were empty
// answers (no TTFT) when any were: "40 (25 empty)".
func okCell(r results.Requests) string {
	if r.EmptyAnswers > 0 {
		return fmt.Sprintf("%d (%d empty)", r.Completed, r.EmptyAnswers)
	}
	return strconv.Itoa(r.Completed)
}

// assertCell is "2/3 FAIL" when an assert failed, "3/3" when all passed and
// "-" when the run has none.
func assertCell(as []results.AssertResult) string {
	if len(as) == 0 {
		return "-"
	}
	passed := 0
	for _, a := range as {
		if a.Passed {
			passed++
		}
	}
	if passed < len(as) {
		return fmt.Sprintf("%d/%d FAIL", passed, len(as))
	}
	return fmt.Sprintf("%d/%d", passed, len(as))
}

// Server columns of the run table: "-" for a server without /metrics.
func kvCell(m *results.ServerMetrics) string {
	if m == nil {
		return "-"
	}
	return Value(m.KVCacheUsageMax, results.Ratio)
}

func waitingCell(m *results.ServerMetrics) string {
	if m == nil {
		return "-"
	}
	return strconv.FormatFloat(m.RequestsWaitingMax, 'f', 0, 64)
}

func preemptCell(m *results.ServerMetrics) string {
	if m == nil {
		return "-"
	}
	return strconv.FormatFloat(m.Preemptions, 'f', 0, 64)
}

func hitCell(m *results.ServerMetrics) string {
	if m == nil || m.PrefixCacheHitRate == nil {
		return "-"
	}
	return Value(*m.PrefixCacheHitRate, results.Ratio)
}

// runningCell is the most requests the server ran at once, from its series.
func runningCell(ss *results.ServerSeries) string {
	if ss == nil || len(ss.Running) == 0 {
		return "-"
	}
	most := 0.0
	for _, v := range ss.Running {
		most = max(most, v)
	}
	return strconv.FormatFloat(most, 'f', 0, 64)
}
