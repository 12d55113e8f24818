package results

import (
	"math"
	"testing"
	"time"
)

func msd(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }

// handRecords is a small run whose summary is worked out by hand in
// TestSummarizeByHand.
func handRecords() []Record {
	return []Record{
		{Seq: 0, Warmup: true, Sent: msd(-100), TTFT: msd(500), E2EL: msd(900), OutputTokens: 9, InputTokens: 9, Finished: msd(-1)},
		{Seq: 1, Sent: 0, TTFT: msd(10), E2EL: msd(40), OutputTokens: 4, InputTokens: 10, Finished: msd(41), ITL: []float64{10, 10, 10}},
		{Seq: 2, Scheduled: msd(8), Sent: msd(10), TTFT: msd(20), E2EL: msd(30), OutputTokens: 2, InputTokens: 10, Finished: msd(40), ITL: []float64{10}},
		{Seq: 3, Scheduled: msd(20), Sent: msd(20), Error: "http 500: boom", ErrorKind: "http", Finished: msd(50)},
		{Seq: 4, Scheduled: msd(30), Sent: msd(30), TTFT: msd(30), E2EL: msd(30), OutputTokens: 1, InputTokens: 5, Finished: msd(60)},
	}
}

func approxEq(t *testing.T, name string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
		t.Errorf("%s = %.12g, want %.12g", name, got, want)
	}
}

func TestSummarizeByHand(t *testing.T) {
	s := Summarize(handRecords(), SummarizeOptions{GoodputTTFT: 20, GoodputTPOT: 10})
	if s.Requests.Completed != 3 || s.Requests.Failed != 1 {
		t.Fatalf("completed/failed = %d/%d, want 3/1 (warmup excluded)", s.Requests.Completed, s.Requests.Failed)
	}
	// TTFT 10, 20, 30
	approxEq(t, "ttft.mean", s.TTFT.Mean, 20)
	approxEq(t, "ttft.std", s.TTFT.Std, math.Sqrt(200.0/3)) // population std
	approxEq(t, "ttft.p90", s.TTFT.P90, 28)                 // 20 + 0.8·10
	approxEq(t, "ttft.p99", s.TTFT.P99, 29.8)
	approxEq(t, "ttft.median", s.TTFT.Median, 20)
	// TPOT: (40-10)/3 and (30-20)/1; the one-token request has none
	if s.TPOT.N != 2 {
		t.Errorf("tpot.n = %d, want 2", s.TPOT.N)
	}
	approxEq(t, "tpot.mean", s.TPOT.Mean, 10)
	// E2EL 40, 30, 30
	approxEq(t, "e2el.p50", s.E2EL.P50, 30)
	approxEq(t, "e2el.mean", s.E2EL.Mean, 100.0/3)
	approxEq(t, "itl.n", float64(s.ITL.N), 4)
	// window: first measured send 0 ms to last end 60 ms
	approxEq(t, "duration", s.DurationSeconds, 0.06)
	approxEq(t, "throughput.requests", s.Throughput.Requests, 3/0.06)
	approxEq(t, "throughput.output_tokens", s.Throughput.OutputTokens, 7/0.06)
	approxEq(t, "throughput.total_tokens", s.Throughput.TotalTokens, 32/0.06)
	// good: seq 1 (10 ms, 10 ms) and 2 (20 ms, 10 ms); seq 4's TTFT 30 > 20
	approxEq(t, "goodput.requests", s.Goodput.Requests, 2/0.06)
	approxEq(t, "goodput.ratio", s.Goodput.Ratio, 0.5)
	approxEq(t, "error_rate", s.ErrorRate, 0.25)
	// four measured sends over 30 ms; lags 0, 2, 0, 0 ms
	approxEq(t, "client.achieved_rate", s.Client.AchievedRate, 100)
	approxEq(t, "client.schedule_lag.p99", s.Client.ScheduleLagP99, 0+0.97*2) // h = 3·0.99 = 2.97 between 0 and 2
	if s.Structured != nil {
		t.Error("no structured records, but Structured is set")
	}
}

func TestSummarizeEdgeCases(t *testing.T) {
	// nothing measured: all zeros, no division by zero
	s := Summarize([]Record{{Warmup: true}}, SummarizeOptions{})
	if s.TTFT != (Stats{}) || s.ErrorRate != 0 || s.Throughput.Requests != 0 {
		t.Errorf("empty summary not zero: %+v", s)
	}
	// without limits every completed request is good
	s = Summarize(handRecords(), SummarizeOptions{})
	approxEq(t, "goodput.ratio", s.Goodput.Ratio, 0.75)
	// structured validity over the answers that carry it
	yes, no := true, false
	s = Summarize([]Record{{StructuredValid: &yes, Finished: 1}, {StructuredValid: &no, Finished: 1}, {StructuredValid: &yes, Finished: 1}}, SummarizeOptions{})
	if s.Structured == nil {
		t.Fatal("Structured is nil")
	}
	approxEq(t, "structured.valid_rate", s.Structured.ValidRate, 2.0/3)
}

func TestPercentileLinear(t *testing.T) {
	v := []float64{1, 2, 3, 4}
	tests := []struct {
		p, want float64
	}{
		{0, 1}, {100, 4}, {50, 2.5}, {25, 1.75}, {99.9, 3.997},
	}
	for _, tt := range tests {
		approxEq(t, "percentile", Percentile(v, tt.p), tt.want)
	}
	if Percentile(nil, 50) != 0 {
		t.Error("empty percentile must be 0")
	}
}
