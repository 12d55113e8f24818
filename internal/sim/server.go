package sim

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Version is what GET /version reports: the vLLM release whose wire format
// the simulator follows, marked as the simulator.
const Version = "0.12.0-llmgate-sim"

// DefaultKeepAlive is how long vLLM's HTTP server keeps an idle
// keep-alive connection open: VLLM_HTTP_TIMEOUT_KEEP_ALIVE's default of 5
// seconds, handed to uvicorn as timeout_keep_alive. A client that reuses a
// connection idle for longer finds it closed, as it would on vLLM.
const DefaultKeepAlive = 5 * time.Second

// KeepAliveEnv is the environment variable vLLM reads its keep-alive
// timeout from, in whole seconds; `llmgate sim` reads it too.
const KeepAliveEnv = "VLLM_HTTP_TIMEOUT_KEEP_ALIVE"

// ParseKeepAlive reads a KeepAliveEnv value: whole seconds, at least 1, as
// vLLM's int() of the variable takes them.
func ParseKeepAlive(v string) (time.Duration, error) {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 1 || n > 86400 {
		return 0, fmt.Errorf("%s=%q: want whole seconds from 1 to 86400", KeepAliveEnv, v)
	}
	return time.Duration(n) * time.Second, nil
}

// Server is one simulated vLLM server: an engine plus its HTTP API.
type Server struct {
	cfg     *resolved
	eng     *engine
	stats   *stats
	tok     *Tokenizer
	handler http.Handler
	log     io.Writer
	created int64
	reqSeq  atomic.Uint64
	closed  atomic.Bool
}

// New checks cfg, sizes the KV cache and starts the engine loop. The server
// answers requests through Handler (or ListenAndServe) until Close.
func New(cfg Config) (*Server, error) {
	r, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: r, stats: newStats(), log: cfg.Log, created: time.Now().Unix()}
	if s.log == nil {
		s.log = io.Discard
	}
	s.tok = NewTokenizer(r.prof.Vocab)
	s.eng = newEngine(r, s.stats)
	s.handler = s.routes()
	s.logStartup()
	go s.eng.run()
	<-s.eng.ready
	return s, nil
}

func (s *Server) logf(format string, a ...any) {
	fmt.Fprintf(s.log, "INFO %s [llmgate-sim] "+format+"\n", append([]any{time.Now().Format("01-02 15:04:05")}, a...)...)
}

func (s *Server) logStartup() {
	r := s.cfg
	s.logf("vLLM API server version %s", Version)
	s.logf("simulating %s on %d x %s (profile %s)", r.Model, r.tp, r.prof.GPUName, r.prof.Name)
	s.logf("served model name: %s, max_model_len=%d, max_num_seqs=%d, max_num_batched_tokens=%d, block_size=%d, enable_prefix_caching=%v, kv_cache_dtype=%s, gpu_memory_utilization=%.2f",
		r.served, r.MaxModelLen, r.MaxNumSeqs, r.MaxNumBatchedTokens, r.BlockSize, !r.NoPrefixCaching, r.KVCacheDtype, r.GPUMemoryUtilization)
	s.logf("Loading model weights took %.2f GiB", r.weightsGiB)
	s.logf("Available KV cache memory: %.2f GiB", r.kvGiB)
	s.logf("# GPU blocks: %d", r.numBlocks)
	s.logf("GPU KV cache size: %s tokens", commas(r.maxTokensKV))
	s.logf("Maximum concurrency for %s tokens per request: %.2fx", commas(r.MaxModelLen), float64(r.maxTokensKV)/float64(r.MaxModelLen))
	if r.TimeScale != 1 {
		s.logf("time scale %g: every modelled duration takes %g of it on the wall clock; /metrics reports wall seconds", r.TimeScale, r.TimeScale)
	}
	if r.Slowdown != 1 || r.FailRate > 0 || r.Stall != "" || r.InvalidStructuredRate > 0 || r.PerSeqOverhead != "" {
		s.logf("fault injection: slowdown=%g fail_rate=%g stall=%q invalid_structured_rate=%g per_seq_overhead=%v", r.Slowdown, r.FailRate, r.Stall, r.InvalidStructuredRate, r.perSeq)
	}
}

func commas(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Handler is the server's HTTP API.
func (s *Server) Handler() http.Handler { return s.handler }

// Stats returns a snapshot of the engine's main counters.
func (s *Server) Stats() Snapshot { return s.stats.snapshot() }

// ModelName is the name clients send as "model".
func (s *Server) ModelName() string { return s.cfg.served }

// Close stops the engine; requests still in flight end with an error.
func (s *Server) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	s.eng.stop()
	return nil
}

// ListenAndServe serves on cfg.Host:cfg.Port until ctx ends, then shuts
// down gracefully (in-flight requests get a few seconds) and closes s.
func (s *Server) ListenAndServe(ctx context.Context) error {
	if err := s.startUp(ctx); err != nil {
		return fmt.Errorf("start up: %w", err)
	}
	addr := net.JoinHostPort(s.cfg.Host, strconv.Itoa(s.cfg.Port))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	return s.Serve(ctx, ln)
}

// Serve serves on ln until ctx ends, like ListenAndServe.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{Handler: s.handler, ReadHeaderTimeout: 30 * time.Second, IdleTimeout: s.cfg.keepAlive()}
	addr := ln.Addr().String()
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && tcp.IP.IsUnspecified() {
		addr = net.JoinHostPort(s.cfg.Host, strconv.Itoa(tcp.Port))
	}
	s.logf("Starting vLLM API server 0 on http://%s", addr)
	s.logf("Application startup complete.")
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		s.Close()
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	s.logf("Shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s.Close() // ends streams still running, so Shutdown does not wait on them
	err := hs.Shutdown(sctx)
	if errors.Is(err, context.DeadlineExceeded) {
		hs.Close()
		err = nil
	}
	<-errc
	return err
}
