package report

import (
	"strings"
	"testing"
	"time"

	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/results"
)

// TestTraceReplayRateChart: a trace replay's HTML report draws the trace's
// arrivals per second beside the sends, from the request log's planned
// offsets. The trace plans 10 requests in its first second and 10 in its
// second; the replay sent the second second's 10 a second late, so the
// sends show 10, 0, 10 where the trace shows 10, 10, 0.
func TestTraceReplayRateChart(t *testing.T) {
	var recs []results.Record
	for i := range 20 {
		planned := time.Duration(i) * 100 * time.Millisecond
		sent := planned
		if i >= 10 {
			sent += time.Second
		}
		recs = append(recs, results.Record{Seq: i, Index: i, TraceRow: i + 1, Scheduled: planned, Sent: sent,
			TTFT: 5 * time.Millisecond, E2EL: 9 * time.Millisecond, InputTokens: 8, OutputTokens: 3})
	}
	a := results.Analyze(recs, results.SummarizeOptions{})
	run := results.Run{Name: "replay", Scenario: "replay", Status: results.StatusOK, Summary: a.Summary, Samples: a.Samples, Requests: a.Requests}
	if got := run.Requests.PlannedUS; len(got) != 20 || got[10] != 1_000_000 || run.Requests.StartUS[10] != 2_000_000 {
		t.Fatalf("planned %v, sent %v: want request 10 planned at 1 s and sent at 2 s", got, run.Requests.StartUS)
	}
	f := &results.File{Runs: []results.Run{run}}
	var b strings.Builder
	if err := HTML(&b, f, nil, compare.Compare(nil, f, compare.Config{})); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{"replay: the trace&#39;s arrivals and the requests sent, per second", ">trace/s<", ">sent/s<"} {
		if !strings.Contains(page, want) {
			t.Errorf("the HTML report lacks %q", want)
		}
	}
	// a run that is neither staged nor a replay has no such chart
	plain := run
	plain.Requests = &results.RequestLog{StartUS: run.Requests.StartUS, TTFTUS: run.Requests.TTFTUS, E2ELUS: run.Requests.E2ELUS,
		ITLMaxUS: run.Requests.ITLMaxUS, InputTokens: run.Requests.InputTokens, OutputTokens: run.Requests.OutputTokens}
	if _, ok := sendRateChart(&plain); ok {
		t.Error("a run without stages or a trace got a send-rate chart")
	}
}
