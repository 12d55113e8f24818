package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/llmgate/llmgate/results"
)

// RunTable writes one aligned row per run of f: name, status, requests
// ok/failed, request and output-token throughput, TTFT p50/p95, TPOT p50,
// E2EL p95 (milliseconds) and asserts passed/total. Runs that were not
// measured (status failed) show "-" for their numbers.
func RunTable(w io.Writer, f *results.File) error {
	t := &table{left: map[int]bool{1: true}}
	t.add("run", "status", "ok", "failed", "req/s", "out tok/s", "TTFT p50", "TTFT p95", "TPOT p50", "E2EL p95", "asserts")
	for i := range f.Runs {
		r := &f.Runs[i]
		s := &r.Summary
		if r.Status == results.StatusFailed {
			t.add(r.Name, r.Status, "-", "-", "-", "-", "-", "-", "-", "-", assertCell(r.Asserts))
			continue
		}
		t.add(r.Name, r.Status,
			strconv.Itoa(s.Requests.Completed), strconv.Itoa(s.Requests.Failed),
			fmtNum(s.Throughput.Requests), fmtNum(s.Throughput.OutputTokens),
			fmtMs(s.TTFT.P50), fmtMs(s.TTFT.P95), fmtMs(s.TPOT.P50), fmtMs(s.E2EL.P95),
			assertCell(r.Asserts))
	}
	if err := t.write(w); err != nil {
		return err
	}
	var b strings.Builder
	for _, r := range capacityRuns(f) {
		fmt.Fprintf(&b, "\n%s: %s\n%s", r.Name, CapacityLine(r.Capacity), ProbeTable(r.Capacity))
	}
	writeKnees(&b, f)
	writeHints(&b, f)
	_, err := io.WriteString(w, b.String())
	return err
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
