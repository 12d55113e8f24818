package load

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"
)

// maxEventSize bounds one event's data: a server that sends an endless
// line or a huge event fails the request (errEventTooLarge) instead of
// making the client buffer it. Real chunks are a few hundred bytes; a
// gateway that sends a whole answer in one chunk stays far below it.
const maxEventSize = 1 << 20

// errEventTooLarge is why a stream whose event passed maxEventSize failed.
var errEventTooLarge = fmt.Errorf("an event of the stream is larger than %d MiB", maxEventSize>>20)

// keepScratch is the most scratch memory a reader keeps between requests;
// a rare huge event's buffer is dropped rather than pooled.
const keepScratch = 64 << 10

// sseReader reads server-sent events from a response body with little
// allocation: it hands out each event's data field as a slice of its own
// buffer, valid until the next call, and the time its first data line
// arrived. Comments and fields other than data are skipped; several data
// lines of one event are joined with "\n" as the SSE specification says.
//
// What a connection buffers is bounded: the bufio buffer and one event's
// data, at most maxEventSize. A line longer than the bufio buffer is read
// in pieces straight into the event's data when it is a data line, and
// skipped without being kept otherwise.
//
// The arrival time is the end of the connection read that completed the
// line when the reader knows the connection (stampFrom), else the time the
// line was scanned. Reads of the body reach the connection only when the
// buffered bytes hold no complete line, so the latest read is the one that
// brought the line in.
type sseReader struct {
	br    *bufio.Reader
	data  []byte    // current event's data
	at    time.Time // when the current event's first data line was read
	has   bool      // the current event has a data field
	conn  *timedConn
	floor time.Time // conn reads before this belong to an earlier request
}

func newSSEReader(r io.Reader, size int) *sseReader {
	return &sseReader{br: bufio.NewReaderSize(r, size), data: make([]byte, 0, 512)}
}

func (s *sseReader) reset(r io.Reader) {
	s.br.Reset(r)
	if cap(s.data) > keepScratch {
		s.data = make([]byte, 0, 512)
	}
	s.data = s.data[:0]
	s.has = false
	s.conn, s.floor = nil, time.Time{}
}

// stampFrom makes the reader take arrival times from c's reads, ignoring
// reads that ended before floor (the request's send time).
func (s *sseReader) stampFrom(c *timedConn, floor time.Time) {
	s.conn, s.floor = c, floor
}

// now is the arrival time of the line just read.
func (s *sseReader) now() time.Time {
	if s.conn != nil {
		if t, ok := s.conn.read(); ok && !t.Before(s.floor) {
			return t
		}
	}
	return time.Now()
}

// next returns the data of the next event and when it started to arrive.
// At the end of the stream it returns io.EOF, after a final event whose
// lines were complete but that was not closed by a blank line, if any. A
// stream cut in the middle of a line gives io.ErrUnexpectedEOF, and the
// partial event is dropped (the SSE specification's rule): half a chunk is
// a disconnect, not a malformed chunk. An event past maxEventSize gives
// errEventTooLarge.
func (s *sseReader) next() ([]byte, time.Time, error) {
	for {
		line, err := s.br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if err := s.longLine(line); err != nil {
				return nil, time.Time{}, err
			}
			continue
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				return nil, time.Time{}, err
			}
			if len(line) > 0 {
				return nil, time.Time{}, io.ErrUnexpectedEOF
			}
			if s.has {
				s.has = false
				return s.data, s.at, nil
			}
			return nil, time.Time{}, io.EOF
		}
		line = trimEOL(line)
		if len(line) == 0 { // blank line: dispatch
			if s.has {
				s.has = false
				return s.data, s.at, nil
			}
			continue
		}
		field, value := cutField(line)
		if string(field) != "data" {
			continue // a comment (":" first: an empty field name) or another field
		}
		if err := s.addData(value); err != nil {
			return nil, time.Time{}, err
		}
	}
}

// cutField splits a line into its field name and value, without the one
// space the SSE specification allows after the colon; a line without a
// colon is all field name.
func cutField(line []byte) (field, value []byte) {
	i := bytes.IndexByte(line, ':')
	if i < 0 {
		return line, nil
	}
	field, value = line[:i], line[i+1:]
	if len(value) > 0 && value[0] == ' ' {
		value = value[1:]
	}
	return field, value
}

// addData starts the event's data with value, or adds it as a further line.
func (s *sseReader) addData(value []byte) error {
	ok := true
	if !s.has {
		s.has = true
		s.at = s.now()
		s.data = s.data[:0]
	} else {
		s.data, ok = appendAllBounded(s.data, newline)
	}
	if ok {
		s.data, ok = appendAllBounded(s.data, value)
	}
	if !ok || len(s.data) > maxEventSize {
		return errEventTooLarge
	}
	return nil
}

var newline = []byte{'\n'}

// longLine reads the rest of a line longer than the bufio buffer, whose
// first part is first: a data line's value goes straight into the event's
// data, bounded by maxEventSize; any other line is skipped unkept.
func (s *sseReader) longLine(first []byte) error {
	// the bufio buffer holds at least 16 bytes, so "data:" and the space
	// after it are in the first part
	field, value := cutField(first)
	data := string(field) == "data" && len(field) < len(first)
	if data {
		if err := s.addData(value); err != nil {
			return err
		}
	}
	for {
		part, err := s.br.ReadSlice('\n')
		if data {
			var ok bool
			if s.data, ok = appendAllBounded(s.data, part); !ok {
				return errEventTooLarge
			}
		}
		switch {
		case err == nil:
			if data {
				if s.data = trimEOL(s.data); len(s.data) > maxEventSize {
					return errEventTooLarge
				}
			}
			return nil
		case errors.Is(err, bufio.ErrBufferFull):
		case errors.Is(err, io.EOF):
			return io.ErrUnexpectedEOF
		default:
			return err
		}
	}
}

// appendAllBounded appends src to dst unless that would pass maxEventSize
// (with room for a line ending), growing dst at most to that bound rather
// than by append's doubling past it.
func appendAllBounded(dst, src []byte) ([]byte, bool) {
	const limit = maxEventSize + 2 // "\r\n" is trimmed after
	n := len(dst) + len(src)
	if n > limit {
		return dst, false
	}
	if n > cap(dst) {
		grown := make([]byte, len(dst), min(max(2*cap(dst), n), limit))
		copy(grown, dst)
		dst = grown
	}
	return append(dst, src...), true
}

func trimEOL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b
}

// isDone reports whether data is the OpenAI end-of-stream marker.
func isDone(data []byte) bool {
	return string(bytes.TrimSpace(data)) == "[DONE]"
}
