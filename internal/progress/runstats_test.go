package progress

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/llmgate/llmgate/internal/progress/event"
	"github.com/llmgate/llmgate/results"
)

// TestTrackerFigures checks the running figures against a closed loop whose
// answers are known: 8 users, each request taking exactly 400 ms.
func TestTrackerFigures(t *testing.T) {
	var tr runStats
	tr.reset(event.RunStarted{Requests: 80, Concurrency: 8})
	for i := range 80 {
		wave := time.Duration(i/8) * 400 * time.Millisecond
		tr.add(results.Record{Seq: i, Sent: wave, TTFT: time.Duration(50+i%8) * time.Millisecond, E2EL: 400 * time.Millisecond})
	}
	p50, _ := tr.ttftP50()
	tests := []struct {
		name      string
		got, want float64
	}{
		// 80 requests over 10 waves of 400 ms.
		{name: "req/s", got: tr.rate(), want: 20},
		// A closed loop of 8 users has 8 in flight.
		{name: "in flight", got: float64(tr.inFlight()), want: 8},
		// TTFTs 50..57 ms, ten of each: median 53.5.
		{name: "ttft p50", got: p50, want: 53.5},
		{name: "fraction", got: tr.fraction(), want: 1},
	}
	for _, tt := range tests {
		if math.Abs(tt.got-tt.want) > 0.6 {
			t.Errorf("%s = %.3f, want %.3f", tt.name, tt.got, tt.want)
		}
	}
}

// TestTrackerWarmupAndFailures checks warmup is counted apart and failures
// count as finished but not in TTFT.
func TestTrackerWarmupAndFailures(t *testing.T) {
	var tr runStats
	tr.reset(event.RunStarted{Requests: 4, Warmup: 2})
	tr.add(results.Record{Warmup: true, TTFT: time.Second})
	tr.add(results.Record{Warmup: true, TTFT: time.Second})
	tr.add(results.Record{Sent: 0, TTFT: 10 * time.Millisecond, E2EL: 20 * time.Millisecond})
	tr.add(results.Record{Sent: time.Millisecond, Error: "disconnect", Finished: 5 * time.Millisecond})
	if tr.warm != 2 || tr.done != 1 || tr.failed != 1 || tr.finished() != 2 {
		t.Errorf("warm/done/failed = %d/%d/%d, want 2/1/1", tr.warm, tr.done, tr.failed)
	}
	if got, ok := tr.ttftP50(); got != 10 || !ok {
		t.Errorf("ttft p50 = %v (%v), want 10 (warmup and failures excluded)", got, ok)
	}
	if got := tr.fraction(); got != 0.5 {
		t.Errorf("fraction = %v, want 0.5", got)
	}
}

// TestTrackerEmptyAnswerHasNoTTFT checks that an empty answer (a completed
// request that ended before its first token, TTFT 0) counts as done but
// is no TTFT sample, and that a run with none so far shows no TTFT: once
// each empty answer was a 0 ms TTFT that pulled the median down.
func TestTrackerEmptyAnswerHasNoTTFT(t *testing.T) {
	p := &text{}
	tr := &p.t
	tr.reset(event.RunStarted{Requests: 4})
	tr.add(results.Record{Sent: 0, E2EL: 5 * time.Millisecond, EmptyAnswer: true})
	if got, ok := tr.ttftP50(); ok {
		t.Errorf("ttft p50 = %v after only an empty answer, want none", got)
	}
	if line := strings.Join(p.status(false), ", "); strings.Contains(line, "TTFT") {
		t.Errorf("status %q shows a TTFT before any request had one", line)
	}
	tr.add(results.Record{Sent: time.Millisecond, TTFT: 40 * time.Millisecond, E2EL: 60 * time.Millisecond})
	tr.add(results.Record{Sent: 2 * time.Millisecond, E2EL: 6 * time.Millisecond, EmptyAnswer: true})
	tr.add(results.Record{Sent: 3 * time.Millisecond, TTFT: 60 * time.Millisecond, E2EL: 80 * time.Millisecond})
	if tr.done != 4 || tr.failed != 0 {
		t.Errorf("done/failed = %d/%d, want 4/0", tr.done, tr.failed)
	}
	if got, ok := tr.ttftP50(); got != 50 || !ok {
		t.Errorf("ttft p50 = %v (%v), want 50: the median of 40 and 60 ms, the empty answers left out", got, ok)
	}
}

// TestRunLineEmptyAnswersHaveNoLatency checks that the finished run's
// figures show no TTFT or TPOT when every answer was empty (none had a
// first token), rather than 0 ms.
func TestRunLineEmptyAnswersHaveNoLatency(t *testing.T) {
	run := &results.Run{Name: "chat", Status: results.StatusOK, Summary: results.Summary{
		Requests: results.Requests{Completed: 3, EmptyAnswers: 3}, E2EL: results.Stats{N: 3, P50: 4, P95: 5}}}
	_, figures := describeRun(run)
	if want := "TTFT p50 - p95 -, TPOT p50 -"; !strings.Contains(figures, want) {
		t.Errorf("figures %q, want %q", figures, want)
	}
	run.Summary.TTFT = results.Stats{N: 1, P50: 12, P95: 12}
	if _, figures = describeRun(run); !strings.Contains(figures, "TTFT p50 12.0ms p95 12.0ms") {
		t.Errorf("figures %q, want TTFT p50 12.0ms p95 12.0ms", figures)
	}
}
