package results

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestInvalidAnswersKeepTheirFinishReason checks the request log keeps the
// finish_reason of each answer that failed its schema, in the order of
// invalid_structured; that a file with them reads back, one whose reasons
// do not match the invalid answers is refused, and that joining logs keeps
// them beside their answers, a log from before they were kept included.
func TestInvalidAnswersKeepTheirFinishReason(t *testing.T) {
	valid, invalid := true, false
	recs := []Record{
		{Scheduled: 0, Sent: 0, Finished: time.Millisecond, E2EL: time.Millisecond, OutputTokens: 4, StructuredValid: &invalid, FinishReason: "length"},
		{Scheduled: 0, Sent: time.Millisecond, Finished: 2 * time.Millisecond, E2EL: time.Millisecond, OutputTokens: 9, StructuredValid: &valid, FinishReason: "stop"},
		{Scheduled: 0, Sent: 2 * time.Millisecond, Finished: 3 * time.Millisecond, E2EL: time.Millisecond, OutputTokens: 9, StructuredValid: &invalid, FinishReason: "stop"},
	}
	a := Analyze(recs, SummarizeOptions{})
	log := a.Requests
	if !slices.Equal(log.InvalidStructured, []int{0, 2}) || !slices.Equal(log.InvalidStructuredFinish, []string{"length", "stop"}) {
		t.Fatalf("invalid %v with %q, want [0 2] with [length stop]", log.InvalidStructured, log.InvalidStructuredFinish)
	}

	read := func(l *RequestLog) error {
		f := sampleFile()
		f.Runs[0].Requests = l
		var b bytes.Buffer
		if err := f.Write(&b); err != nil {
			t.Fatal(err)
		}
		got, err := Read(&b)
		if err == nil && !slices.Equal(got.Runs[0].Requests.InvalidStructuredFinish, l.InvalidStructuredFinish) {
			t.Errorf("read back %q, wrote %q", got.Runs[0].Requests.InvalidStructuredFinish, l.InvalidStructuredFinish)
		}
		return err
	}
	if err := read(log); err != nil {
		t.Errorf("a log with finish reasons: %v", err)
	}
	old := *log
	old.InvalidStructuredFinish = nil // written before they were kept
	if err := read(&old); err != nil {
		t.Errorf("a log without finish reasons: %v", err)
	}
	short := *log
	short.InvalidStructuredFinish = []string{"length"}
	if err := read(&short); err == nil || !errors.Is(err, ErrInvalidFile) || !strings.Contains(err.Error(), "invalid_structured_finish_reason has 1 entries, invalid_structured 2") {
		t.Errorf("one reason for two invalid answers: %v", err)
	}
	long := *log
	long.InvalidStructuredFinish = []string{"length", strings.Repeat("x", MaxFinishReason+1)}
	if err := read(&long); err == nil || !strings.Contains(err.Error(), "invalid_structured_finish_reason[1] is 33 bytes") {
		t.Errorf("a 33-byte reason: %v", err)
	}

	j := JoinRequestLogs([]*RequestLog{&old, log}, []int64{0, 10_000})
	if !slices.Equal(j.InvalidStructured, []int{0, 2, 3, 5}) || !slices.Equal(j.InvalidStructuredFinish, []string{"", "", "length", "stop"}) {
		t.Errorf("joined invalid %v with %q, want [0 2 3 5] with [  length stop]", j.InvalidStructured, j.InvalidStructuredFinish)
	}
}
