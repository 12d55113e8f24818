package load

import (
	"errors"
	"fmt"
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
// It also refuses to carry a request the server may no longer read: the
// first Write since arm fails, before a byte is written, when the
// connection has been idle longer than its idle limit or the server has
// closed it (a keep-alive timeout). The HTTP transport then sends the
// request again on a new connection, as it does for any request of which
// nothing was written; a request of which one byte was written is never
// sent twice.
//
// Offsets are monotonic nanoseconds from monoBase; 0 means none.
type timedConn struct {
	net.Conn
	wroteAt atomic.Int64
	readAt  atomic.Int64
	// lastIO is when bytes last crossed the connection either way (or it
	// was opened): the start of its idle time.
	lastIO atomic.Int64
	// limit is the longest the connection may be idle and still carry a
	// request; nil: no limit.
	limit *idleLimit
	// refused is set once a request was refused (see errStale): the
	// connection is done, and the request goes on another.
	refused atomic.Bool
	peer    peerCheck
	// opened is when the connection was ready (dialled and, for https,
	// handshaken).
	opened time.Time
}

var _ net.Conn = (*timedConn)(nil)

// newTimedConn wraps c, just opened, with an idle limit (nil: none).
func newTimedConn(c net.Conn, limit *idleLimit) *timedConn {
	tc := &timedConn{Conn: c, limit: limit, opened: time.Now()}
	tc.lastIO.Store(sinceBase())
	tc.peer = newPeerCheck(c)
	return tc
}

func sinceBase() int64 { return max(int64(time.Since(monoBase)), 1) }

// errStale is why a request was not written on a connection: the server
// may have closed it.
var errStale = errors.New("connection set aside before the request was written")

// Read reads from the connection and notes when data came back.
func (c *timedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		now := sinceBase()
		c.readAt.Store(now)
		c.lastIO.Store(now)
	}
	return n, err
}

// Write notes when the first write since arm began, then writes. That
// first write is refused, with nothing written, when the connection is
// stale (see stale).
func (c *timedConn) Write(p []byte) (int, error) {
	if c.wroteAt.Load() == 0 {
		if why := c.stale(); why != "" {
			c.refused.Store(true)
			return 0, fmt.Errorf("%w: %s", errStale, why)
		}
		c.wroteAt.CompareAndSwap(0, sinceBase())
	}
	n, err := c.Conn.Write(p)
	if n > 0 {
		c.lastIO.Store(sinceBase())
	}
	return n, err
}

// stale says why the connection must not carry a new request, or "": it
// has been idle longer than its limit, or the server has closed it.
func (c *timedConn) stale() string {
	if limit := c.limit.get(); limit > 0 {
		if idle := c.idle(); idle > limit {
			return fmt.Sprintf("idle %v, longer than the %v a connection may be idle", idle.Round(time.Millisecond), limit)
		}
	}
	if c.peer.closed() {
		return "the server closed it"
	}
	return ""
}

// idle is how long the connection has carried no byte either way.
func (c *timedConn) idle() time.Duration {
	last := c.lastIO.Load()
	if last == 0 {
		return 0
	}
	return time.Duration(sinceBase() - last)
}

// idleLimit is the longest a connection may be idle and still carry a
// request, shared by a client's connections. It starts below the server's
// keep-alive timeout as far as that is known, and comes down when the
// server shows a shorter one (see lower).
type idleLimit struct{ ns atomic.Int64 }

// MinLearnedIdle is the shortest idle time that lower learns from: a
// connection lost after a shorter pause says more about the server's
// health than about its keep-alive timeout.
const MinLearnedIdle = 250 * time.Millisecond

func newIdleLimit(d time.Duration) *idleLimit {
	l := &idleLimit{}
	l.ns.Store(int64(d))
	return l
}

// get is the limit; 0 (also for a nil limit) means none.
func (l *idleLimit) get() time.Duration {
	if l == nil {
		return 0
	}
	return time.Duration(l.ns.Load())
}

// lower learns from a request lost, before any answer, on a connection
// that had been idle for idle: the server closed it for idleness, so its
// keep-alive timeout is at most that. The limit comes down to half of it
// (as for a probed timeout), unless idle is below MinLearnedIdle. It
// reports whether the limit changed.
func (l *idleLimit) lower(idle time.Duration) bool {
	if l == nil || idle < MinLearnedIdle {
		return false
	}
	for {
		cur := l.ns.Load()
		next := int64(idle / 2)
		if cur > 0 && next >= cur {
			return false
		}
		if l.ns.CompareAndSwap(cur, next) {
			return true
		}
	}
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
