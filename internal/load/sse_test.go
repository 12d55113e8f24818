package load

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

func readEvents(t *testing.T, r io.Reader, size int) ([]string, error) {
	t.Helper()
	s := newSSEReader(r, size)
	var got []string
	for {
		data, at, err := s.next()
		if err != nil {
			return got, err
		}
		if at.IsZero() {
			t.Errorf("event %q has no arrival time", data)
		}
		got = append(got, string(data))
	}
}

func TestSSEReaderGolden(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []string
		wantErr error // io.EOF when zero
	}{
		// vLLM's shape: data lines closed by blank lines, then [DONE]
		{name: "vllm", in: "data: {\"a\":1}\n\ndata: {\"a\":2}\n\ndata: [DONE]\n\n", want: []string{`{"a":1}`, `{"a":2}`, "[DONE]"}},
		// CRLF line endings are accepted
		{name: "crlf", in: "data: x\r\n\r\ndata: y\r\n\r\n", want: []string{"x", "y"}},
		// comments (keep-alives) and other fields are skipped
		{name: "comments", in: ": ping\n\nevent: msg\nid: 3\ndata: x\n\n", want: []string{"x"}},
		// several data lines make one event joined by newlines
		{name: "multiline", in: "data: a\ndata: b\n\n", want: []string{"a\nb"}},
		// no space after the colon is fine too
		{name: "nospace", in: "data:x\n\n", want: []string{"x"}},
		// a final event whose line is complete but lacks its blank line still counts
		{name: "unterminated", in: "data: x\n\ndata: y\n", want: []string{"x", "y"}},
		// a stream cut in the middle of a line drops the partial event: a disconnect, not a bad chunk
		{name: "cut mid-line", in: "data: x\n\ndata: {\"choi", want: []string{"x"}, wantErr: io.ErrUnexpectedEOF},
		// a chunk whose text holds "data: " and a blank-looking escape is one event
		{name: "data in text", in: "data: {\"text\":\"data: x\\n\\ndata: [DONE]\"}\n\n", want: []string{`{"text":"data: x\n\ndata: [DONE]"}`}},
		// blank lines alone produce nothing
		{name: "blank", in: "\n\n\n", want: nil},
		// a line that is not a field is ignored
		{name: "garbage", in: "hello\ndata: x\n\n", want: []string{"x"}},
	}
	for _, tt := range tests {
		for _, mode := range []string{"whole", "onebyte", "half"} {
			t.Run(tt.name+"/"+mode, func(t *testing.T) {
				var r io.Reader = strings.NewReader(tt.in)
				switch mode {
				case "onebyte":
					r = iotest.OneByteReader(r)
				case "half":
					r = iotest.HalfReader(r)
				}
				got, err := readEvents(t, r, 4096)
				wantErr := tt.wantErr
				if wantErr == nil {
					wantErr = io.EOF
				}
				if !errors.Is(err, wantErr) {
					t.Fatalf("err = %v, want %v", err, wantErr)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("events (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func TestSSEReaderLongLine(t *testing.T) {
	long := strings.Repeat("x", 10000)
	got, err := readEvents(t, iotest.HalfReader(strings.NewReader("data: "+long+"\n\ndata: y\n\n")), 64)
	if !errors.Is(err, io.EOF) {
		t.Fatalf("err = %v", err)
	}
	if len(got) != 2 || got[0] != long || got[1] != "y" {
		t.Errorf("got %d events, first %d bytes", len(got), len(got[0]))
	}
}

// A line that never ends is an error once it passes maxEventSize, not a
// buffer that grows without bound.
func TestSSEReaderBoundsLines(t *testing.T) {
	endless := strings.NewReader("data: " + strings.Repeat("x", maxEventSize+4096))
	got, err := readEvents(t, endless, 4096)
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || len(got) != 0 {
		t.Errorf("got %d events, err %v; want the size error", len(got), err)
	}
}

func TestSSEReaderPassesReadErrors(t *testing.T) {
	boom := errors.New("boom")
	r := io.MultiReader(strings.NewReader("data: x\n\n"), iotest.ErrReader(boom))
	got, err := readEvents(t, r, 4096)
	if !errors.Is(err, boom) || len(got) != 1 {
		t.Errorf("got %v, %v; want one event then boom", got, err)
	}
}

func TestIsDone(t *testing.T) {
	for in, want := range map[string]bool{"[DONE]": true, " [DONE] ": true, "[done]": false, "{}": false} {
		if got := isDone([]byte(in)); got != want {
			t.Errorf("isDone(%q) = %v", in, got)
		}
	}
}

// TestSSEReaderLongLinePieces checks lines longer than the buffer: a data
// line read in pieces straight into the event (several data lines joined),
// and other long lines skipped without being kept.
func TestSSEReaderLongLinePieces(t *testing.T) {
	long := strings.Repeat("y", 100)
	comment := ": " + strings.Repeat("c", 5000)
	in := "data:" + strings.Repeat("x", 11) + " " + long + "\n" + // ':' inside the first piece
		"data: a\ndata:" + "\n\n" + // an empty further line
		comment + "\n" + "event: " + long + "\n" +
		"data:" + "\r\n\r\n"
	for _, mode := range []string{"whole", "onebyte"} {
		var r io.Reader = strings.NewReader(in)
		if mode == "onebyte" {
			r = iotest.OneByteReader(r)
		}
		got, err := readEvents(t, r, 16)
		if !errors.Is(err, io.EOF) {
			t.Fatalf("%s: err = %v", mode, err)
		}
		first := strings.Repeat("x", 11) + " " + long + "\na\n" // three data lines, the last empty
		if diff := cmp.Diff([]string{first, ""}, got); diff != "" {
			t.Errorf("%s: events (-want +got):\n%s", mode, diff)
		}
	}
	// the space after the colon of a long data line is dropped
	s := newSSEReader(strings.NewReader("data: "+long+"\n\n"), 16)
	if data, _, err := s.next(); err != nil || string(data) != long {
		t.Errorf("data = %.20q…, %v; want %d y's", data, err, len(long))
	}
	// a long comment is skipped, not kept
	s = newSSEReader(strings.NewReader(": "+strings.Repeat("c", 2*maxEventSize)+"\ndata: y\n\n"), 4096)
	if data, _, err := s.next(); err != nil || string(data) != "y" || cap(s.data) > keepScratch {
		t.Errorf("after a %d MiB comment: data %q, %v, buffer %d bytes", 2*maxEventSize>>20, data, err, cap(s.data))
	}
}

// TestSSEReaderEventTooLarge checks that an event past maxEventSize, in
// one line or in many, is errEventTooLarge, and that the buffer it grew
// never passed the bound.
func TestSSEReaderEventTooLarge(t *testing.T) {
	for name, in := range map[string]string{
		"one line":   "data: " + strings.Repeat("x", maxEventSize+1) + "\n\n",
		"many lines": strings.Repeat("data: "+strings.Repeat("x", 1000)+"\n", maxEventSize/1000+1) + "\n",
		"endless":    "data: " + strings.Repeat("x", 3*maxEventSize),
	} {
		s := newSSEReader(strings.NewReader(in), 4096)
		if _, _, err := s.next(); !errors.Is(err, errEventTooLarge) {
			t.Errorf("%s: err = %v, want errEventTooLarge", name, err)
		}
		if c := cap(s.data); c > maxEventSize+2 {
			t.Errorf("%s: the event buffer grew to %d bytes, past the %d bound", name, c, maxEventSize+2)
		}
	}
	// at the bound exactly, the event is whole
	s := newSSEReader(strings.NewReader("data: "+strings.Repeat("x", maxEventSize)+"\r\n\r\n"), 4096)
	if data, _, err := s.next(); err != nil || len(data) != maxEventSize {
		t.Errorf("an event of exactly %d bytes: %d bytes, %v", maxEventSize, len(data), err)
	}
}
