package results

import (
	"testing"
	"time"
)

// convRecords are two conversations of three turns with known latencies:
// first turns take 100 ms to the first token, later turns 20 ms; one later
// turn failed.
func convRecords() []Record {
	var recs []Record
	at := time.Duration(0)
	for s := range 2 {
		for turn := range 3 {
			r := Record{Seq: len(recs), Sent: at, Turn: turn, Session: s, InputTokens: 100 * (turn + 1), OutputTokens: 4,
				TTFT: 20 * time.Millisecond, E2EL: 50 * time.Millisecond, ITL: []float64{10, 10, 10}}
			if turn == 0 {
				r.TTFT, r.E2EL = 100*time.Millisecond, 130*time.Millisecond
			}
			if s == 1 && turn == 2 {
				r = Record{Seq: len(recs), Sent: at, Turn: turn, Session: s, Error: "http 500: boom", ErrorKind: "http"}
			}
			recs = append(recs, r)
			at += 200 * time.Millisecond
		}
	}
	return recs
}

func TestAnalyzeTurns(t *testing.T) {
	s := Analyze(convRecords(), SummarizeOptions{}).Summary
	if s.Turns == nil {
		t.Fatal("no turn slices for a conversation run")
	}
	f, l := s.Turns.First, s.Turns.Later
	if f.Requests != (Requests{Completed: 2}) || l.Requests != (Requests{Completed: 3, Failed: 1}) {
		t.Errorf("requests first %+v later %+v, want 2/0 and 3/1", f.Requests, l.Requests)
	}
	if f.TTFT.P95 != 100 || f.E2EL.Mean != 130 || l.TTFT.P95 != 20 || l.E2EL.Mean != 50 {
		t.Errorf("first TTFT p95 %v E2EL mean %v, later %v %v; want 100 130 20 50", f.TTFT.P95, f.E2EL.Mean, l.TTFT.P95, l.E2EL.Mean)
	}
	if f.InputTokensMean != 100 || l.InputTokensMean != 700.0/3 {
		t.Errorf("input means %v %v, want 100 and 233.3", f.InputTokensMean, l.InputTokensMean)
	}
	for name, want := range map[string]float64{"first_turn.ttft.p95": 100, "later_turns.ttft.p95": 20, "later_turns.e2el.mean": 50} {
		m, ok := LookupMetric(name)
		if !ok {
			t.Fatalf("metric %s not in the namespace", name)
		}
		if got, ok := m.Value(&s); !ok || got != want {
			t.Errorf("%s = %v (%v), want %v", name, got, ok, want)
		}
	}

	// without conversations there are no turn slices and no turn metrics
	plain := convRecords()
	for i := range plain {
		plain[i].Turn = 0
	}
	s = Analyze(plain, SummarizeOptions{}).Summary
	if s.Turns != nil {
		t.Errorf("turn slices %+v for a run without conversations", s.Turns)
	}
	m, _ := LookupMetric("first_turn.ttft.p95")
	if v, ok := m.Value(&s); ok {
		t.Errorf("first_turn.ttft.p95 = %v on a run without conversations, want missing", v)
	}
}

func TestLengthBuckets(t *testing.T) {
	recs := convRecords() // inputs 100, 200, 300, 100, 200 and a failure without usage
	s := Analyze(recs, SummarizeOptions{LengthBuckets: []int{150, 300}}).Summary
	want := []struct {
		label  string
		lo, hi int
		ok     int
		in     float64
		ttft   float64
	}{
		{"< 150 tok", 0, 150, 2, 100, 100},
		{"150–300 tok", 150, 300, 2, 200, 20},
		{"≥ 300 tok", 300, 0, 1, 300, 20},
	}
	if len(s.LengthBuckets) != len(want) {
		t.Fatalf("%d buckets, want %d: %+v", len(s.LengthBuckets), len(want), s.LengthBuckets)
	}
	for i, w := range want {
		b := s.LengthBuckets[i]
		if b.Label != w.label || b.MinInputTokens != w.lo || b.MaxInputTokens != w.hi || b.Requests != (Requests{Completed: w.ok}) || b.InputTokensMean != w.in || b.TTFT.P95 != w.ttft {
			t.Errorf("bucket %d = %+v, want %+v", i, b, w)
		}
	}
	if s := Analyze(recs, SummarizeOptions{}).Summary; s.LengthBuckets != nil {
		t.Errorf("buckets %+v without edges", s.LengthBuckets)
	}
	// a failure with a reported length counts in its bucket
	recs[5].InputTokens = 400
	b := Analyze(recs, SummarizeOptions{LengthBuckets: []int{150, 300}}).Summary.LengthBuckets[2]
	if b.Requests != (Requests{Completed: 1, Failed: 1}) {
		t.Errorf("last bucket counts %+v, want one completed and one failed", b.Requests)
	}
}
