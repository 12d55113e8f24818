package load

import (
	"net"
	"sync/atomic"
	"time"
)

// monoBase is the origin of the monotonic offsets a timedConn keeps.
var monoBase = time.Now()

// timedConn is a client connection that notes when bytes cross it, so that
// a request's send time and each chunk's arrival time are read at the
// socket rather than after the HTTP transport and the scheduler have had
// their turn (on a busy client those add milliseconds that are not the
// server's):
//   - the start of the first Write since arm: the request leaving;
//   - the end of the latest Read that returned data: bytes arriving.
//
// Offsets are monotonic nanoseconds from monoBase; 0 means none.
type timedConn struct {
	net.Conn
	wroteAt atomic.Int64
	readAt  atomic.Int64
}

var _ net.Conn = (*timedConn)(nil)

func sinceBase() int64 { return max(int64(time.Since(monoBase)), 1) }

// Read reads from the connection and notes when data came back.
func (c *timedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.readAt.Store(sinceBase())
	}
	return n, err
}

// Write notes when the first write since arm began, then writes.
func (c *timedConn) Write(p []byte) (int, error) {
	if c.wroteAt.Load() == 0 {
		c.wroteAt.CompareAndSwap(0, sinceBase())
	}
	return c.Conn.Write(p)
}

// arm forgets the last write time, before a new request is written.
func (c *timedConn) arm() { c.wroteAt.Store(0) }

// wrote returns when the first write since arm began.
func (c *timedConn) wrote() (time.Time, bool) {
	ns := c.wroteAt.Load()
	return monoBase.Add(time.Duration(ns)), ns != 0
}

// read returns when the latest read that returned data ended.
func (c *timedConn) read() (time.Time, bool) {
	ns := c.readAt.Load()
	return monoBase.Add(time.Duration(ns)), ns != 0
}
