package results

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"
)

// emptyAnswerRecords are a conversation's turns, each 300 ms apart, of
// which one first turn and one later turn ended before their first token
// (empty answers: no TTFT), one later turn failed and the others answered
// in 100 ms (first turns) or 20 ms (later turns).
func emptyAnswerRecords() []Record {
	var recs []Record
	for s := range 2 {
		for turn := range 3 {
			r := Record{Seq: len(recs), Sent: time.Duration(len(recs)) * 300 * time.Millisecond, Turn: turn, Session: s,
				InputTokens: 100 * (turn + 1), OutputTokens: 4, TTFT: 20 * time.Millisecond, E2EL: 50 * time.Millisecond}
			if turn == 0 {
				r.TTFT, r.E2EL = 100*time.Millisecond, 130*time.Millisecond
			}
			switch {
			case s == 1 && turn == 0, s == 0 && turn == 2:
				r.TTFT, r.E2EL, r.OutputTokens, r.EmptyAnswer = 0, 10*time.Millisecond, 0, true
			case s == 1 && turn == 2:
				r = Record{Seq: r.Seq, Sent: r.Sent, Turn: turn, Session: s, Error: "http 500", ErrorKind: ErrorHTTP}
			}
			recs = append(recs, r)
		}
	}
	return recs
}

// TestRequestLogEmptyAnswers checks that the request log lists the empty
// answers and that the slices it makes (by turn, by input length) take no
// 0 ms TTFT from them, as the run's summary takes none: once they did, and
// a slice's TTFT p50 or min was 0.
func TestRequestLogEmptyAnswers(t *testing.T) {
	a := Analyze(emptyAnswerRecords(), SummarizeOptions{LengthBuckets: []int{150}})
	if got := a.Requests.EmptyAnswers; !slices.Equal(got, []int{2, 3}) {
		t.Fatalf("requests.empty_answers %v, want [2 3]", got)
	}
	if a.Summary.TTFT.N != 3 || a.Summary.TTFT.Min != 20 {
		t.Errorf("summary TTFT %+v, want 3 samples from 20 ms", a.Summary.TTFT)
	}
	turns := a.Summary.Turns
	if f := turns.First; f.TTFT.N != 1 || f.TTFT.Min != 100 || f.E2EL.N != 2 || f.Requests != (Requests{Completed: 2, EmptyAnswers: 1}) {
		t.Errorf("first turns %+v: want 1 TTFT of 100 ms, 2 E2ELs, 2 completed with 1 empty", f)
	}
	if l := turns.Later; l.TTFT.N != 2 || l.TTFT.Min != 20 || l.E2EL.N != 3 || l.Requests != (Requests{Completed: 3, Failed: 1, EmptyAnswers: 1}) {
		t.Errorf("later turns %+v: want 2 TTFTs from 20 ms, 3 E2ELs, 3 completed with 1 empty and 1 failed", l)
	}
	short := a.Summary.LengthBuckets[0] // inputs of 100: the first turns
	if short.TTFT.N != 1 || short.TTFT.P50 != 100 {
		t.Errorf("bucket %q TTFT %+v, want 1 sample of 100 ms", short.Label, short.TTFT)
	}
	run := &Run{Summary: a.Summary, Requests: a.Requests}
	for name, want := range map[string][]float64{
		"length_bucket." + short.Name + ".ttft.p95": {100},
		"length_bucket." + short.Name + ".e2el.p95": {130, 10},
	} {
		m, ok := LookupMetric(name)
		if !ok {
			t.Fatalf("metric %s not in the namespace", name)
		}
		if got := m.Samples(run); !slices.Equal(got, want) {
			t.Errorf("%s samples %v, want %v", name, got, want)
		}
	}
}

// TestRequestLogEmptyAnswersInFile checks requests.empty_answers in the
// file: written only when there are some (a log without them reads and
// writes as before), joined across blocks, and refused when it names a
// request the log does not have or one that failed.
func TestRequestLogEmptyAnswersInFile(t *testing.T) {
	log := Analyze(emptyAnswerRecords(), SummarizeOptions{}).Requests
	file := func(l *RequestLog) *File {
		return &File{Version: SchemaVersion, Runs: []Run{{Name: "chat", Scenario: "chat", Status: StatusOK, Requests: l}}}
	}
	var buf bytes.Buffer
	if err := file(log).Write(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"empty_answers": [`) {
		t.Errorf("the written log lacks requests.empty_answers:\n%s", buf.String())
	}
	back, err := Read(&buf)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if got := back.Runs[0].Requests.EmptyAnswers; !slices.Equal(got, log.EmptyAnswers) {
		t.Errorf("read back %v, want %v", got, log.EmptyAnswers)
	}

	plain := Analyze(convRecords(), SummarizeOptions{}).Requests
	buf.Reset()
	if err := file(plain).Write(&buf); err != nil {
		t.Fatal(err)
	}
	if plain.EmptyAnswers != nil || strings.Contains(buf.String(), "empty_answers") {
		t.Errorf("a log without empty answers writes empty_answers %v", plain.EmptyAnswers)
	}

	joined := JoinRequestLogs([]*RequestLog{plain, log}, []int64{0, 2e6})
	if want := []int{plain.Len() + 2, plain.Len() + 3}; !slices.Equal(joined.EmptyAnswers, want) {
		t.Errorf("joined empty_answers %v, want %v", joined.EmptyAnswers, want)
	}

	for _, bad := range []int{-1, log.Len(), 5} { // 5 is the failed request
		l := *log
		l.EmptyAnswers = []int{bad}
		buf.Reset()
		if err := file(&l).Write(&buf); err != nil {
			t.Fatal(err)
		}
		if _, err := Read(&buf); err == nil || !strings.Contains(err.Error(), "requests.empty_answers names request") {
			t.Errorf("empty_answers [%d]: Read error %v, want one naming requests.empty_answers", bad, err)
		}
	}
}
