package serverinfo

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"sync"
	"time"
)

// IdleWatch finds how long a server keeps an idle keep-alive connection
// open: it makes one request on a connection of its own, then leaves the
// connection idle and notes when the server closes it. uvicorn, vLLM's
// HTTP server, closes one after VLLM_HTTP_TIMEOUT_KEEP_ALIVE (5 s by
// default); a client that sends on a connection the server is closing
// loses the request.
type IdleWatch struct {
	cancel context.CancelFunc
	done   chan struct{}

	mu      sync.Mutex
	started time.Time
	timeout time.Duration // when the server closed it, after its answer
	closed  bool
	err     error
}

// WatchIdle starts watching the server at base (its root) for at most
// limit: it makes its request on a connection of its own before it
// returns (so that nothing of it overlaps what the caller does next), then
// waits in the background for the server to close the connection. Result
// says what was seen so far, Stop ends the watch.
func WatchIdle(ctx context.Context, base string, limit time.Duration) *IdleWatch {
	ctx, cancel := context.WithCancel(ctx)
	w := &IdleWatch{cancel: cancel, done: make(chan struct{}), started: time.Now()}
	c, br, err := openIdle(ctx, base)
	if err != nil {
		w.err = err
		close(w.done)
		return w
	}
	w.started = time.Now()
	go func() {
		defer close(w.done)
		d, closed, err := waitClose(ctx, c, br, limit)
		w.mu.Lock()
		defer w.mu.Unlock()
		w.timeout, w.closed, w.err = d, closed, err
	}()
	return w
}

// Result is the idle timeout when the server closed the connection
// (closed), else how long the connection has been idle without being
// closed; err says why the watch could not be made.
func (w *IdleWatch) Result() (d time.Duration, closed bool, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed || w.err != nil {
		return w.timeout, w.closed, w.err
	}
	select {
	case <-w.done:
		return w.timeout, w.closed, w.err
	default:
	}
	return time.Since(w.started), false, nil
}

// Wait waits until the watch ended (the server closed the connection, or
// its limit passed) or ctx did.
func (w *IdleWatch) Wait(ctx context.Context) {
	select {
	case <-w.done:
	case <-ctx.Done():
	}
}

// Stop ends the watch and closes its connection; Result keeps what was seen.
func (w *IdleWatch) Stop() {
	w.mu.Lock()
	seen := time.Since(w.started)
	w.mu.Unlock()
	w.cancel()
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.closed && w.err == nil {
		w.timeout = seen
	}
}

// fill puts what a watch saw into f.
func (w *IdleWatch) fill(f *Features) {
	d, closed, _ := w.Result()
	if closed {
		f.IdleTimeout = d
	} else {
		f.IdleWaited = d
	}
}

// openIdle dials base and asks GET /health on the connection, reading
// the whole answer: the connection is then idle.
func openIdle(ctx context.Context, base string) (net.Conn, *bufio.Reader, error) {
	u, err := url.Parse(base)
	if err != nil {
		return nil, nil, err
	}
	host := u.Host
	if u.Port() == "" {
		port := "80"
		if u.Scheme == "https" {
			port = "443"
		}
		host = net.JoinHostPort(u.Hostname(), port)
	}
	var d net.Dialer
	dctx, cancel := context.WithTimeout(ctx, RequestTimeout)
	defer cancel()
	c, err := d.DialContext(dctx, "tcp", host)
	if err != nil {
		return nil, nil, err
	}
	if u.Scheme == "https" {
		tc := tls.Client(c, &tls.Config{ServerName: u.Hostname()})
		if err := tc.HandshakeContext(dctx); err != nil {
			c.Close()
			return nil, nil, err
		}
		c = tc
	}
	fail := func(err error) (net.Conn, *bufio.Reader, error) {
		c.Close()
		return nil, nil, err
	}
	c.SetDeadline(time.Now().Add(RequestTimeout))
	if _, err := fmt.Fprintf(c, "GET %s/health HTTP/1.1\r\nHost: %s\r\nUser-Agent: llmgate-probe\r\n\r\n", u.Path, u.Host); err != nil {
		return fail(err)
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return fail(err)
	}
	_, err = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	if err != nil {
		return fail(err)
	}
	if resp.Close {
		return fail(errors.New("the server closes the connection after every answer (no keep-alive)"))
	}
	return c, br, nil
}

// waitClose waits for the server to close the idle connection c, at most
// limit or until ctx ends, and closes it.
func waitClose(ctx context.Context, c net.Conn, br *bufio.Reader, limit time.Duration) (time.Duration, bool, error) {
	defer c.Close()
	// the limit's deadline first: set after the stop's, it would undo a
	// Stop that came between the two and hold the read for the whole limit
	t0 := time.Now()
	c.SetDeadline(t0.Add(limit))
	stop := context.AfterFunc(ctx, func() { c.SetDeadline(time.Now()) })
	defer stop()
	_, err := br.ReadByte()
	seen := time.Since(t0)
	switch {
	case err == nil:
		return 0, false, errors.New("the server sent bytes on an idle connection")
	case errors.Is(err, os.ErrDeadlineExceeded):
		return seen, false, nil // watched to the end (or stopped), not closed
	default: // EOF or reset: the server closed it
		return seen, true, nil
	}
}
