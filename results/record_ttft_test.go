package results

import (
	"testing"
	"time"
)

// TestRecordHasTTFT checks which requests have a TTFT: a completed one
// with a first token, not a failed one nor an empty answer, whose TTFT of
// 0 is no time.
func TestRecordHasTTFT(t *testing.T) {
	for _, tt := range []struct {
		name string
		rec  Record
		want bool
	}{
		{name: "answered", rec: Record{TTFT: 40 * time.Millisecond}, want: true},
		{name: "answered at once", rec: Record{}, want: true}, // a 0 that is a time: only the flags say
		{name: "failed", rec: Record{Error: "http 500", ErrorKind: ErrorHTTP}},
		{name: "failed after its first token", rec: Record{TTFT: 40 * time.Millisecond, Error: "cut", ErrorKind: ErrorDisconnect}},
		{name: "empty answer", rec: Record{EmptyAnswer: true}},
	} {
		if got := tt.rec.HasTTFT(); got != tt.want {
			t.Errorf("%s: HasTTFT %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestSummaryTTFTIsHasTTFT checks that the summary's TTFT samples are
// those of the requests HasTTFT names, and only theirs.
func TestSummaryTTFTIsHasTTFT(t *testing.T) {
	recs := []Record{
		{Seq: 0, TTFT: 30 * time.Millisecond, E2EL: 60 * time.Millisecond, OutputTokens: 4},
		{Seq: 1, Sent: time.Millisecond, E2EL: 5 * time.Millisecond, EmptyAnswer: true},
		{Seq: 2, Sent: 2 * time.Millisecond, Error: "http 500", ErrorKind: ErrorHTTP},
		{Seq: 3, Sent: 3 * time.Millisecond, TTFT: 50 * time.Millisecond, E2EL: 80 * time.Millisecond, OutputTokens: 4},
	}
	want := 0
	for i := range recs {
		if recs[i].HasTTFT() {
			want++
		}
	}
	a := Analyze(recs, SummarizeOptions{})
	if a.Summary.TTFT.N != want || len(a.Samples.TTFT) != want || a.Summary.TTFT.Min != 30 {
		t.Errorf("summary TTFT %+v from samples %v, want %d samples from 30 ms", a.Summary.TTFT, a.Samples.TTFT, want)
	}
}
