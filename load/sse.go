package load

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"
)

// maxEventSize bounds one SSE line and one event's data, so that a server
// that never sends a newline cannot make the client buffer without end.
// Real chunks are a few hundred bytes.
const maxEventSize = 8 << 20

// keepScratch is the most scratch memory a reader keeps between requests;
// a rare huge event's buffer is dropped rather than pooled.
const keepScratch = 64 << 10

// sseReader reads server-sent events from a response body with little
// allocation: it hands out each event's data field as a slice of its own
// buffer, valid until the next call, and the time its first data line
// arrived. Comments and fields other than data are skipped; several data
// lines of one event are joined with "\n" as the SSE specification says.
//
// The arrival time is the end of the connection read that completed the
// line when the reader knows the connection (stampFrom), else the time the
// line was scanned. Reads of the body reach the connection only when the
// buffered bytes hold no complete line, so the latest read is the one that
// brought the line in.
type sseReader struct {
	br    *bufio.Reader
	data  []byte    // current event's data
	long  []byte    // assembles a line longer than the bufio buffer
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
	if cap(s.long) > keepScratch {
		s.long = nil
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
// a disconnect, not a malformed chunk.
func (s *sseReader) next() ([]byte, time.Time, error) {
	for {
		line, err := s.readLine()
		if err != nil {
			if errors.Is(err, io.EOF) && s.has {
				s.has = false
				return s.data, s.at, nil
			}
			return nil, time.Time{}, err
		}
		if len(line) == 0 { // blank line: dispatch
			if s.has {
				s.has = false
				return s.data, s.at, nil
			}
			continue
		}
		if line[0] == ':' { // comment
			continue
		}
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		if string(field) != "data" {
			continue
		}
		if !s.has {
			s.has = true
			s.at = s.now()
			s.data = append(s.data[:0], value...)
		} else {
			if len(s.data)+1+len(value) > maxEventSize {
				return nil, time.Time{}, fmt.Errorf("sse event larger than %d MiB", maxEventSize>>20)
			}
			s.data = append(s.data, '\n')
			s.data = append(s.data, value...)
		}
	}
}

// readLine returns the next line without its line ending (\n, \r\n or \r
// before \n). A final line cut off before its newline is an
// io.ErrUnexpectedEOF.
func (s *sseReader) readLine() ([]byte, error) {
	line, err := s.br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		s.long = append(s.long[:0], line...)
		for errors.Is(err, bufio.ErrBufferFull) {
			if len(s.long) > maxEventSize {
				return nil, fmt.Errorf("sse line longer than %d MiB", maxEventSize>>20)
			}
			line, err = s.br.ReadSlice('\n')
			s.long = append(s.long, line...)
		}
		line = s.long
	}
	if err != nil {
		if errors.Is(err, io.EOF) && len(line) > 0 {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return trimEOL(line), nil
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
