package load

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"sync"
	"time"
)

// connPool hands pre-opened connections to the HTTP transport so that the
// first wave of requests does not pay for TCP (and TLS) set-up inside its
// TTFT. When the pre-opened ones are used up, or have aged past maxAge (an
// idle server may have closed them), it dials afresh.
type connPool struct {
	addr    string
	tlsConf *tls.Config // nil for plain http
	dialer  net.Dialer
	maxAge  time.Duration

	mu    sync.Mutex
	ready []pooledConn
	late  int // connections dialled on demand, after fill
}

type pooledConn struct {
	net.Conn
	opened time.Time
}

func newConnPool(addr string, tlsConf *tls.Config) *connPool {
	return &connPool{addr: addr, tlsConf: tlsConf, dialer: net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}, maxAge: 3 * time.Second}
}

// fill opens n connections, at most 64 at a time, and keeps them ready. It
// fails with the first dial error.
func (p *connPool) fill(ctx context.Context, n int) error {
	sem := make(chan struct{}, 64)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			c, err := p.open(ctx)
			if err != nil {
				errs <- err
				return
			}
			p.mu.Lock()
			p.ready = append(p.ready, pooledConn{Conn: c, opened: time.Now()})
			p.mu.Unlock()
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs // nil when none
}

// open dials (and TLS-handshakes) one connection, wrapped in a timedConn
// so that the client can read send and arrival times at the socket.
func (p *connPool) open(ctx context.Context) (net.Conn, error) {
	c, err := p.dialer.DialContext(ctx, "tcp", p.addr)
	if err != nil {
		return nil, err
	}
	if p.tlsConf == nil {
		return &timedConn{Conn: c}, nil
	}
	tc := tls.Client(c, p.tlsConf)
	if err := tc.HandshakeContext(ctx); err != nil {
		c.Close()
		return nil, fmt.Errorf("tls handshake with %s: %w", p.addr, err)
	}
	return &timedConn{Conn: tc}, nil
}

// dial is the transport's DialContext (http) or DialTLSContext (https).
func (p *connPool) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	p.mu.Lock()
	for len(p.ready) > 0 {
		c := p.ready[len(p.ready)-1]
		p.ready = p.ready[:len(p.ready)-1]
		if time.Since(c.opened) <= p.maxAge {
			p.mu.Unlock()
			return c.Conn, nil
		}
		c.Close()
	}
	p.late++
	p.mu.Unlock()
	return p.open(ctx)
}

// refresh replaces the ready connections that are older than half maxAge
// with new ones, so that a long warmup does not leave stale connections for
// the first measured wave.
func (p *connPool) refresh(ctx context.Context) error {
	p.mu.Lock()
	keep := p.ready[:0]
	stale := 0
	for _, c := range p.ready {
		if time.Since(c.opened) > p.maxAge/2 {
			c.Close()
			stale++
			continue
		}
		keep = append(keep, c)
	}
	p.ready = keep
	p.mu.Unlock()
	if stale == 0 {
		return nil
	}
	return p.fill(ctx, stale)
}

// close closes the connections never handed out.
func (p *connPool) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.ready {
		c.Close()
	}
	p.ready = nil
}
