package load

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The benchmarks' SSE server runs in a child process (this test binary
// re-executed) so that the client's CPU time, memory and GOMAXPROCS are its
// own. It streams completions with a fixed TTFT and a fixed ITL (one ticker
// goroutine writes every stream's due tokens), from precomputed chunk bytes,
// and reports on GET /stats what it actually did for each request (how late
// its first chunk was, the true TPOT of its writes), so the benchmark can
// tell the client's error from the server's own.
//
// The TTFT is slept from the end of the socket read that brought the
// request's first bytes, not from when the handler had read the body: under
// a burst of 512 requests the server's own parsing backlog (several ms) would
// otherwise count as client error. Lateness is measured from the same point.

const benchServerEnv = "LLMGATE_BENCH_SSE_SERVER"

// TestMain runs the benchmarks' server instead of the tests when this
// binary was started as that child process.
func TestMain(m *testing.M) {
	if spec := os.Getenv(benchServerEnv); spec != "" {
		serveBench(spec)
		return
	}
	os.Exit(m.Run())
}

// serveBench serves on a loopback port it prints, until stdin closes.
func serveBench(spec string) {
	var ttft, itl time.Duration
	if _, err := fmt.Sscanf(spec, "%d %d", &ttft, &itl); err != nil {
		fmt.Fprintln(os.Stderr, "bench server:", err)
		os.Exit(2)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench server:", err)
		os.Exit(2)
	}
	s := newBenchServer(ttft, itl)
	go s.tick()
	fmt.Println(l.Addr().String())
	go func() { io.Copy(io.Discard, os.Stdin); os.Exit(0) }() // parent gone: stop
	srv := &http.Server{Handler: s, ConnContext: func(ctx context.Context, c net.Conn) context.Context {
		return context.WithValue(ctx, benchConnKey{}, c)
	}}
	srv.Serve(benchListener{l})
}

// benchListener hands out benchConns.
type benchListener struct{ net.Listener }

func (l benchListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	bc := &benchConn{Conn: c}
	bc.armed.Store(true)
	return bc, nil
}

type benchConnKey struct{}

// benchConn notes when a request started to arrive: the end of the first
// read that returned data after the connection was opened or last written
// to (HTTP/1.1 without pipelining: a request follows the previous answer).
type benchConn struct {
	net.Conn
	armed   atomic.Bool
	arrival atomic.Int64 // ns since monoBase
}

func (c *benchConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 && c.armed.CompareAndSwap(true, false) {
		c.arrival.Store(sinceBase())
	}
	return n, err
}

func (c *benchConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.armed.Store(true)
	return n, err
}

// arrivedAt is when the request being served on the connection of ctx
// started to arrive, or at when that is unknown or later.
func arrivedAt(ctx context.Context, at time.Time) time.Time {
	if c, ok := ctx.Value(benchConnKey{}).(*benchConn); ok {
		if ns := c.arrival.Load(); ns != 0 {
			if t := monoBase.Add(time.Duration(ns)); t.Before(at) {
				return t
			}
		}
	}
	return at
}

type benchServer struct {
	ttft, itl time.Duration
	chunks    [][]byte // chunks[k]: the chunk carrying token k+1

	mu       sync.Mutex
	streams  []*benchStream
	late     []float64 // ms: first write minus (arrival + ttft)
	truth    map[uint64]benchTruth
	inFlight atomic.Int64
}

// benchTruth is what the server actually did for one request, keyed by the
// FNV-1a hash of its body.
type benchTruth struct {
	LateNS int64 `json:"late_ns"` // first write minus (arrival + ttft)
	TPOTNS int64 `json:"tpot_ns"` // (last token write - first write) / (n-1)
}

type benchStream struct {
	first time.Time
	last  time.Time
	w     http.ResponseWriter
	rc    *http.ResponseController
	next  time.Time
	sent  int
	total int
	done  chan struct{}
}

const benchMaxTokens = 4096

func newBenchServer(ttft, itl time.Duration) *benchServer {
	s := &benchServer{ttft: ttft, itl: itl, truth: map[uint64]benchTruth{}}
	for k := 1; k <= benchMaxTokens; k++ {
		s.chunks = append(s.chunks, []byte(fmt.Sprintf(`data: {"id":"cmpl-bench","object":"text_completion","created":1,"model":"bench","choices":[{"index":0,"text":" tok","logprobs":null,"finish_reason":null,"stop_reason":null}],"usage":{"prompt_tokens":16,"total_tokens":%d,"completion_tokens":%d}}`+"\n\n", 16+k, k)))
	}
	return s
}

func (s *benchServer) finalChunk(n int) []byte {
	return []byte(fmt.Sprintf(`data: {"id":"cmpl-bench","object":"text_completion","created":1,"model":"bench","choices":[],"usage":{"prompt_tokens":16,"total_tokens":%d,"completion_tokens":%d}}`+"\n\ndata: [DONE]\n\n", 16+n, n))
}

func (s *benchServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/stats" {
		s.stats(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	arrived := arrivedAt(r.Context(), time.Now())
	n := 16
	if i := bytes.Index(body, []byte(`"max_tokens":`)); i >= 0 {
		j := i + len(`"max_tokens":`)
		k := j
		for k < len(body) && body[k] >= '0' && body[k] <= '9' {
			k++
		}
		n, _ = strconv.Atoi(string(body[j:k]))
	}
	n = max(1, min(n, benchMaxTokens))
	s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	w.Header().Set("Content-Type", "text/event-stream")
	time.Sleep(time.Until(arrived.Add(s.ttft)))
	first := time.Now()
	rc := http.NewResponseController(w)
	w.Write(s.chunks[0])
	rc.Flush()
	st := &benchStream{first: first, last: first, w: w, rc: rc, next: first.Add(s.itl), sent: 1, total: n, done: make(chan struct{})}
	h := fnv.New64a()
	h.Write(body)
	key := h.Sum64()
	defer func() {
		tr := benchTruth{LateNS: int64(first.Sub(arrived) - s.ttft)}
		if n > 1 {
			tr.TPOTNS = int64(st.last.Sub(st.first)) / int64(n-1)
		}
		s.mu.Lock()
		s.truth[key] = tr
		s.mu.Unlock()
	}()
	s.mu.Lock()
	s.late = append(s.late, float64(first.Sub(arrived)-s.ttft)/1e6)
	if n > 1 {
		s.streams = append(s.streams, st)
	}
	s.mu.Unlock()
	if n > 1 {
		select {
		case <-st.done:
		case <-r.Context().Done():
			s.mu.Lock() // let the ticker drop it safely
			st.total = -1
			s.mu.Unlock()
			return
		}
	}
	w.Write(s.finalChunk(n))
	rc.Flush()
}

// tick writes every stream's due tokens, once a millisecond.
func (s *benchServer) tick() {
	t := time.NewTicker(time.Millisecond)
	for now := range t.C {
		s.mu.Lock()
		keep := s.streams[:0]
		for _, st := range s.streams {
			if st.total < 0 {
				continue
			}
			wrote := false
			for st.sent < st.total && !now.Before(st.next) {
				st.w.Write(s.chunks[st.sent])
				st.sent++
				st.next = st.next.Add(s.itl)
				wrote = true
			}
			if wrote {
				st.rc.Flush()
				st.last = time.Now()
			}
			if st.sent >= st.total {
				close(st.done)
				continue
			}
			keep = append(keep, st)
		}
		for i := len(keep); i < len(s.streams); i++ {
			s.streams[i] = nil
		}
		s.streams = keep
		s.mu.Unlock()
	}
}

type benchStats struct {
	InFlight  int64                 `json:"in_flight"`
	Truth     map[string]benchTruth `json:"truth"`
	Requests  int                   `json:"requests"`
	LateP50MS float64               `json:"late_p50_ms"`
	LateP99MS float64               `json:"late_p99_ms"`
}

func (s *benchServer) stats(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	late := append([]float64(nil), s.late...)
	st := benchStats{InFlight: s.inFlight.Load(), Requests: len(late), Truth: map[string]benchTruth{}}
	for k, v := range s.truth {
		st.Truth[strconv.FormatUint(k, 10)] = v
	}
	if r.URL.Query().Get("reset") != "" {
		s.late = s.late[:0]
		s.truth = map[uint64]benchTruth{}
	}
	s.mu.Unlock()
	sort.Float64s(late)
	if len(late) > 0 {
		st.LateP50MS = late[len(late)/2]
		st.LateP99MS = late[len(late)*99/100]
	}
	json.NewEncoder(w).Encode(st)
}

// benchTarget is a running server child process.
type benchTarget struct {
	url  string
	cmd  *exec.Cmd
	stop io.Closer
}

func startBenchServer(tb testing.TB, ttft, itl time.Duration) *benchTarget {
	tb.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d %d", benchServerEnv, int64(ttft), int64(itl)))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		tb.Fatalf("bench server did not start: %v", err)
	}
	bt := &benchTarget{url: "http://" + string(bytes.TrimSpace([]byte(line))), cmd: cmd, stop: stdin}
	tb.Cleanup(func() {
		stdin.Close()
		cmd.Wait()
	})
	return bt
}

func (bt *benchTarget) stats(tb testing.TB, reset bool) benchStats {
	tb.Helper()
	u := bt.url + "/stats"
	if reset {
		u += "?reset=1"
	}
	resp, err := http.Get(u)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	var st benchStats
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		tb.Fatal(err)
	}
	return st
}
