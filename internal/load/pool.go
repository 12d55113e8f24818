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
// TTFT. When the pre-opened ones are used up, or are stale (idle past
// the idle limit, or closed by the server), it dials afresh.
type connPool struct {
	addr    string
	tlsConf *tls.Config // nil for plain http
	dialer  net.Dialer
	// limit is the longest a connection may be idle and still carry a
	// request, shared with every connection the pool opens.
	limit *idleLimit

	preparing sync.WaitGroup // prepareAsync's dials

	mu    sync.Mutex
	ready []pooledConn
	late  int // connections dialled on demand, after fill
}

type pooledConn struct {
	*timedConn
	opened time.Time
}

func newConnPool(addr string, tlsConf *tls.Config, limit time.Duration) *connPool {
	return &connPool{addr: addr, tlsConf: tlsConf, dialer: net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}, limit: newIdleLimit(limit)}
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
			p.ready = append(p.ready, pooledConn{timedConn: c, opened: time.Now()})
			p.mu.Unlock()
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs // nil when none
}

// open dials (and TLS-handshakes) one connection, wrapped in a timedConn
// so that the client can read send and arrival times at the socket.
func (p *connPool) open(ctx context.Context) (*timedConn, error) {
	c, err := p.dialer.DialContext(ctx, "tcp", p.addr)
	if err != nil {
		return nil, err
	}
	if p.tlsConf == nil {
		return newTimedConn(c, p.limit), nil
	}
	tc := tls.Client(c, p.tlsConf)
	if err := tc.HandshakeContext(ctx); err != nil {
		c.Close()
		return nil, fmt.Errorf("tls handshake with %s: %w", p.addr, err)
	}
	return newTimedConn(tc, p.limit), nil
}

// dial is the transport's DialContext (http) or DialTLSContext (https).
func (p *connPool) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	p.mu.Lock()
	for len(p.ready) > 0 {
		c := p.ready[len(p.ready)-1]
		p.ready = p.ready[:len(p.ready)-1]
		if c.stale() == "" {
			p.mu.Unlock()
			return c.timedConn, nil
		}
		c.Close()
	}
	p.late++
	p.mu.Unlock()
	c, err := p.open(ctx)
	if err != nil {
		return nil, err // a nil *timedConn must not become a non-nil net.Conn
	}
	return c, nil
}

// predialLead is how long before a send after a long pause prepare opens
// its connection: short against the idle limit, long against a dial.
func (p *connPool) predialLead() time.Duration { return min(p.limit.get()/4, 250*time.Millisecond) }

// predialAfter is the pause after which the connections idle at its start
// are stale at its end, so that a fresh one is prepared.
func (p *connPool) predialAfter() time.Duration { return p.limit.get() - p.predialLead() }

// prepare opens one connection and keeps it ready, so that a request sent
// after a long pause finds a fresh one instead of dialling inside its own
// timing; ready connections that went stale meanwhile are closed first.
func (p *connPool) prepare(ctx context.Context) error {
	p.mu.Lock()
	keep := p.ready[:0]
	for _, c := range p.ready {
		if c.stale() != "" {
			c.Close()
			continue
		}
		keep = append(keep, c)
	}
	clear(p.ready[len(keep):])
	p.ready = keep
	p.mu.Unlock()
	return p.fill(ctx, 1)
}

// refresh replaces the ready connections that are older than half the idle limit
// with new ones, so that a long warmup does not leave stale connections for
// the first measured wave.
func (p *connPool) refresh(ctx context.Context) error {
	p.mu.Lock()
	keep := p.ready[:0]
	stale := 0
	for _, c := range p.ready {
		if time.Since(c.opened) > p.limit.get()/2 {
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

// lateDials is how many connections were dialled on demand.
func (p *connPool) lateDials() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.late
}

// prepareAsync runs prepare in the background, so that a slow dial does
// not hold up the send it prepares for (that send then dials itself).
func (p *connPool) prepareAsync(ctx context.Context) {
	p.preparing.Add(1)
	go func() {
		defer p.preparing.Done()
		_ = p.prepare(ctx)
	}()
}

// close closes the connections never handed out, once the dials under way
// are done.
func (p *connPool) close() {
	p.preparing.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.ready {
		c.Close()
	}
	p.ready = nil
}
