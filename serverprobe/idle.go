package serverprobe

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
// limit; Result says what was seen so far, Stop ends the watch.
func WatchIdle(ctx context.Context, base string, limit time.Duration) *IdleWatch {
	ctx, cancel := context.WithCancel(ctx)
	w := &IdleWatch{cancel: cancel, done: make(chan struct{}), started: time.Now()}
	go func() {
		defer close(w.done)
		d, closed, err := watchIdle(ctx, base, limit, w.answered)
		w.mu.Lock()
		defer w.mu.Unlock()
		w.timeout, w.closed, w.err = d, closed, err
	}()
	return w
}

// answered notes when the request's answer ended: the idle time runs from there.
func (w *IdleWatch) answered(t time.Time) {
	w.mu.Lock()
	w.started = t
	w.mu.Unlock()
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

// watchIdle dials base, asks GET /health on the connection, then waits
// for the server to close it, at most limit.
func watchIdle(ctx context.Context, base string, limit time.Duration, answered func(time.Time)) (time.Duration, bool, error) {
	u, err := url.Parse(base)
	if err != nil {
		return 0, false, err
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
	c, err := d.DialContext(dctx, "tcp", host)
	cancel()
	if err != nil {
		return 0, false, err
	}
	if u.Scheme == "https" {
		tc := tls.Client(c, &tls.Config{ServerName: u.Hostname()})
		hctx, cancel := context.WithTimeout(ctx, RequestTimeout)
		err := tc.HandshakeContext(hctx)
		cancel()
		if err != nil {
			c.Close()
			return 0, false, err
		}
		c = tc
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.SetDeadline(time.Now()) })
	defer stop()
	c.SetDeadline(time.Now().Add(RequestTimeout))
	path := u.Path + "/health"
	if _, err := fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: llmgate-probe\r\n\r\n", path, u.Host); err != nil {
		return 0, false, err
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return 0, false, err
	}
	_, err = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	if err != nil {
		return 0, false, err
	}
	if resp.Close {
		return 0, false, errors.New("the server closes the connection after every answer (no keep-alive)")
	}
	t0 := time.Now()
	answered(t0)
	c.SetDeadline(t0.Add(limit))
	_, err = br.ReadByte()
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
