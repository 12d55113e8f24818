//go:build linux || darwin

package load

import (
	"crypto/tls"
	"errors"
	"net"
	"syscall"
)

// peerCheck looks, without reading, whether the server has closed a
// connection: a peek at the socket that does not wait finds the end of
// the stream (or a reset) there. The HTTP transport's own reader would
// notice too, but only once the scheduler runs it, which on a busy client
// can be after the next request was written.
type peerCheck struct {
	raw  syscall.RawConn // nil: cannot look
	buf  [1]byte
	peek func(fd uintptr)
	shut bool
}

func newPeerCheck(c net.Conn) peerCheck {
	if tc, ok := c.(*tls.Conn); ok {
		c = tc.NetConn()
	}
	sc, ok := c.(syscall.Conn)
	if !ok {
		return peerCheck{}
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return peerCheck{}
	}
	return peerCheck{raw: raw}
}

// closed reports whether the server has closed the connection. Bytes
// waiting to be read (a TLS session ticket, say) do not count: only the
// end of the stream or an error does.
func (p *peerCheck) closed() bool {
	if p.raw == nil {
		return false
	}
	if p.peek == nil {
		p.peek = func(fd uintptr) {
			n, _, err := syscall.Recvfrom(int(fd), p.buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
			p.shut = (n == 0 && err == nil) || (err != nil && !errors.Is(err, syscall.EAGAIN) && !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR))
		}
	}
	p.shut = false
	if err := p.raw.Control(p.peek); err != nil {
		return true // the descriptor is gone: closed
	}
	return p.shut
}
