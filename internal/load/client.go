package load

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
	"github.com/llmgate/llmgate/untrusted"
)

// bodyExcerpt is how much of an error response's body a record keeps.
const bodyExcerpt = 512

// client sends streamed requests and times their chunks.
type client struct {
	hc     *http.Client
	base   string
	apiKey string
	// headers are the suite's request headers (runspec.Request.Headers),
	// each name canonical, set on every request after llmgate's own.
	headers []runspec.Header
	timeout time.Duration
	pool    *connPool
	readers sync.Pool // *streamState
}

// streamState is the per-request scratch space, reused across requests.
type streamState struct {
	sse *sseReader
	tr  streamTimer
	ch  chunk
	// conn is the connection the request got (from trace's GotConn), or
	// nil: it gives the send and arrival times at the socket. A request
	// that was redirected (more than one connection) has none: its send
	// time is the first request's.
	conn  *timedConn
	conns int
	// connIdle is how long the connection had been idle when the transport
	// picked it; reconnects counts the connections set aside unwritten
	// before it (see timedConn).
	connIdle   time.Duration
	reconnects int
	trace      *httptrace.ClientTrace
}

func newStreamState() *streamState {
	st := &streamState{sse: newSSEReader(nil, 4096)}
	st.trace = &httptrace.ClientTrace{GotConn: st.gotConn}
	return st
}

// gotConn is told, in the sending goroutine and before the request is
// written, which connection the transport picked.
//
// A connection that refused the request unwritten (stale: see timedConn)
// is followed by the one the request is sent again on: that one carries
// the request and its timing, and the reconnect is counted.
func (st *streamState) gotConn(info httptrace.GotConnInfo) {
	if st.conn != nil && st.conn.refused.Load() {
		st.reconnects++
	} else {
		st.conns++
	}
	st.conn, st.connIdle = nil, 0
	if info.WasIdle {
		st.connIdle = info.IdleTime
	}
	if tc, ok := info.Conn.(*timedConn); ok && st.conns == 1 {
		tc.arm()
		st.conn = tc
	}
}

// forget clears what the state knows of the last request's connections.
func (st *streamState) forget() {
	st.conn, st.conns, st.connIdle, st.reconnects = nil, 0, 0, 0
}

// withTrace returns ctx carrying a trace that reports the connection to st.
func (st *streamState) withTrace(ctx context.Context) context.Context {
	if httptrace.ContextClientTrace(ctx) == nil {
		return httptrace.WithClientTrace(ctx, st.trace)
	}
	// the caller traces too: WithClientTrace composes (and so changes) the
	// trace it is given, so give it a fresh one
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: st.gotConn})
}

// newClient builds the HTTP client for base with a pool of conns
// connections (0: no limit, sized by use), each reused only while idle for
// at most idle (0: runspec.DefaultIdleTimeout).
func newClient(base, apiKey string, conns int, timeout, idle time.Duration) (*client, error) {
	if idle <= 0 {
		idle = runspec.DefaultIdleTimeout
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("base URL %q: want http://host:port or https://host:port", base)
	}
	host := u.Host
	if u.Port() == "" {
		if u.Scheme == "https" {
			host = net.JoinHostPort(u.Hostname(), "443")
		} else {
			host = net.JoinHostPort(u.Hostname(), "80")
		}
	}
	var tlsConf *tls.Config
	if u.Scheme == "https" {
		tlsConf = &tls.Config{ServerName: u.Hostname(), NextProtos: []string{"http/1.1"}}
	}
	pool := newConnPool(host, tlsConf, idle)
	keep := conns
	if keep <= 0 {
		keep = 1024
	}
	tr := &http.Transport{
		Proxy:               nil,
		MaxIdleConns:        keep,
		MaxIdleConnsPerHost: keep,
		MaxConnsPerHost:     max(conns, 0),
		// an idle connection is closed before the server may close it; one
		// the transport picks just as this runs out is refused unwritten by
		// timedConn and the request goes on a fresh one
		IdleConnTimeout:    idle,
		DisableCompression: true, // compression would hold chunks back
		ForceAttemptHTTP2:  false,
		TLSNextProto:       map[string]func(string, *tls.Conn) http.RoundTripper{}, // HTTP/1.1: one stream per connection
	}
	if tlsConf != nil {
		tr.DialTLSContext = pool.dial
	} else {
		tr.DialContext = pool.dial
	}
	c := &client{
		hc:      &http.Client{Transport: tr},
		base:    trimSlash(base),
		apiKey:  apiKey,
		timeout: timeout,
		pool:    pool,
	}
	c.readers.New = func() any { return newStreamState() }
	return c, nil
}

// canonicalHeaders returns hs with canonical names, once per run, so that
// each request sets them without canonicalising again.
func canonicalHeaders(hs []runspec.Header) []runspec.Header {
	out := make([]runspec.Header, len(hs))
	for i, h := range hs {
		h.Name = textproto.CanonicalMIMEHeaderKey(h.Name)
		out[i] = h
	}
	return out
}

func trimSlash(s string) string {
	for len(s) > 0 && s[len(s)-1] == '/' {
		s = s[:len(s)-1]
	}
	return s
}

func (c *client) close() {
	c.pool.close()
	c.hc.CloseIdleConnections()
}

// request is one prepared call: where to send it, its JSON body, and how
// many tokens to expect.
type request struct {
	path      string
	body      []byte
	maxTokens int
	// validate, when set, judges the answer text (structured output).
	validate func(text []byte) bool
	// tools, when set, are the tools the request offered: its tool calls
	// are counted, timed and judged.
	tools *toolSet
	// after, when set, is told the answer text when the request ends.
	after func(text []byte, ok bool)
	// turn is the request's turn in its conversation (0 for the first),
	// session the conversation's number.
	turn, session int
	// notBefore, when set, is the earliest time the request may be sent
	// (a conversation's think time).
	notBefore time.Time
	// wantIn and wantOut are the prompt and answer lengths the workload
	// drew for this request, in tokens; 0 when it asks for none (a grown
	// conversation, a dataset prompt, an answer allowed to stop early).
	wantIn, wantOut int
	// calibration marks a request sent before the run to measure the
	// server (CalibrationHeader), not part of it.
	calibration bool
	// traceRow is the line of the trace row the request replays; 0 for
	// other workloads.
	traceRow int
	// member is the mix member the request drew; "" without a mix.
	member string
}

// CalibrationHeader is set to "1" on the requests Run sends before the run
// to calibrate prompt lengths, so that servers and logs can tell them apart.
const CalibrationHeader = "X-Llmgate-Calibration"

// do sends req and fills rec: Sent and Finished as offsets from origin,
// timings, tokens, or the error with its kind. It never panics on a bad
// server; every failure lands in rec.
//
// The send time is when the request's first byte was handed to the socket
// (the time just before the call to send it when that is unknown), and each
// chunk's time is when the socket read that brought it returned: the
// transport's and the scheduler's delays on a busy client stay out of TTFT
// and ITL. How late the client itself sent is the schedule lag (Sent minus
// Scheduled), which the run's health check bounds.
func (c *client) do(ctx context.Context, req *request, origin time.Time, rec *results.Record) {
	st := c.readers.Get().(*streamState)
	defer func() {
		st.sse.reset(nil) // do not keep the body (and its connection) reachable from the pool
		st.forget()
		c.readers.Put(st)
	}()
	keep := req.validate != nil || req.after != nil
	st.forget()

	rctx, cancel := context.WithTimeout(st.withTrace(ctx), c.timeout)
	defer cancel()

	sent := time.Now()
	rec.Sent = sent.Sub(origin)
	st.tr.reset(sent, req.maxTokens, keep)
	defer func() {
		rec.Finished = time.Since(origin)
		rec.Reconnects = st.reconnects
		if req.after != nil {
			req.after(st.tr.text, rec.OK())
		}
	}()

	resp, err := c.send(rctx, req)
	if st.conn != nil {
		if w, ok := st.conn.wrote(); ok && w.After(sent) {
			sent = w
			rec.Sent = sent.Sub(origin)
			st.tr.sent = sent
		}
	}
	if err != nil {
		classify(rec, ctx, rctx, err, "send")
		if rec.ErrorKind == results.ErrorDisconnect && st.connIdle > 0 {
			// lost before any answer on a connection that had been idle:
			// the server's keep-alive timeout may be shorter than the limit
			rec.ConnIdle = st.connIdle
			c.pool.limit.lower(st.connIdle)
		}
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, bodyExcerpt))
		fail(rec, results.ErrorHTTP, "http "+strconv.Itoa(resp.StatusCode)+": "+untrusted.Line(string(bytes.TrimSpace(b))))
		rec.HTTPStatus = resp.StatusCode
		return
	}

	if ct := resp.Header.Get("Content-Type"); strings.HasPrefix(ct, "application/json") {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, bodyExcerpt))
		fail(rec, results.ErrorProtocol, "the server answered "+ct+", not an event stream (does it support stream=true?): "+untrusted.Line(string(bytes.TrimSpace(b))))
		return
	}
	st.sse.reset(resp.Body)
	if st.conn != nil {
		st.sse.stampFrom(st.conn, sent)
	}
	done := false
	for !done {
		data, at, err := st.sse.next()
		if err != nil {
			switch {
			case errors.Is(err, io.EOF):
				st.tr.fill(rec)
				fail(rec, results.ErrorDisconnect, "stream ended before [DONE]")
			case errors.Is(err, errEventTooLarge):
				st.tr.fill(rec)
				fail(rec, results.ErrorTooLarge, err.Error()+": the request was ended there")
			default:
				st.tr.fill(rec)
				classify(rec, ctx, rctx, err, "read")
			}
			return
		}
		if isDone(data) {
			done = true
			break
		}
		if err := parseChunk(data, &st.ch); err != nil {
			st.tr.fill(rec)
			fail(rec, results.ErrorProtocol, untrusted.Line(err.Error()))
			return
		}
		if st.ch.errMsg != nil {
			st.tr.fill(rec)
			fail(rec, results.ErrorProtocol, "server error in stream: "+untrusted.Line(excerpt(st.ch.errMsg, bodyExcerpt)))
			return
		}
		st.tr.observe(at, &st.ch)
		if why := st.tr.overflow(); why != "" {
			st.tr.fill(rec)
			fail(rec, results.ErrorTooLarge, why)
			return
		}
	}
	// let the connection go back to the pool
	io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
	st.tr.fill(rec)
	switch {
	case !st.tr.usage:
		fail(rec, results.ErrorProtocol, "stream carried no usage: the server ignored stream_options.include_usage, so token counts are unknown")
	case st.tr.emptyAnswer():
		// a stop sequence at the first token: complete, with no first token
		rec.EmptyAnswer = true
	case st.tr.outputs == 0:
		fail(rec, results.ErrorProtocol, "stream carried no generated output (no chunk with text, content, reasoning or tool-call arguments) and no finish_reason")
	case st.tr.usageProblem() != "":
		fail(rec, results.ErrorProtocol, st.tr.usageProblem())
	}
	if rec.OK() && req.validate != nil {
		v := req.validate(st.tr.text)
		rec.StructuredValid = &v
	}
	if rec.OK() && req.tools != nil {
		req.tools.fill(rec, &st.tr.tools, st.tr.sent)
	}
}

// send posts req. The transport sends a request again on a new
// connection when the one it picked refused it unwritten (stale, see
// timedConn) and had carried requests before; a connection opened before
// the run that refuses is replaced here, once. Nothing of a refused
// request reached the server, so it is never sent twice.
func (c *client) send(ctx context.Context, req *request) (*http.Response, error) {
	for try := 0; ; try++ {
		hr, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+req.path, bytes.NewReader(req.body))
		if err != nil {
			return nil, err
		}
		hr.Header.Set("Content-Type", "application/json")
		hr.Header.Set("Accept", "text/event-stream")
		if c.apiKey != "" {
			hr.Header.Set("Authorization", "Bearer "+c.apiKey)
		}
		for _, h := range c.headers {
			// canonical already (the suite's check): no re-canonicalising
			hr.Header[h.Name] = append(hr.Header[h.Name], h.Value)
		}
		if req.calibration {
			hr.Header.Set(CalibrationHeader, "1")
		}
		resp, err := c.hc.Do(hr)
		if err != nil && errors.Is(err, errStale) && try == 0 && ctx.Err() == nil {
			continue
		}
		return resp, err
	}
}

func fail(rec *results.Record, kind results.ErrorKind, msg string) {
	rec.ErrorKind, rec.Error = kind, msg
}

// classify records a transport error: the per-request timeout, the run
// being canceled, or a lost connection (Unreached when the dial failed:
// refused, no such host, no route).
func classify(rec *results.Record, run, req context.Context, err error, during string) {
	switch {
	case run.Err() != nil:
		fail(rec, results.ErrorCanceled, "run canceled during "+during)
	case errors.Is(req.Err(), context.DeadlineExceeded):
		fail(rec, results.ErrorTimeout, "timed out during "+during+" (per-request timeout)")
	default:
		fail(rec, results.ErrorDisconnect, during+": "+err.Error())
		var op *net.OpError
		rec.Unreached = errors.As(err, &op) && op.Op == "dial"
	}
}
