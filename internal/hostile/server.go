// Package hostile is a misbehaving OpenAI-compatible server for tests: each
// Mode breaks one promise a vLLM server keeps (a status, a stream, a line
// length, the usage counts, /metrics), so the tests can check llmgate stays
// bounded in time and memory, writes a valid results file, and publishes
// none of what the server says unescaped or unmasked.
package hostile

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"time"
)

// Mode is one way of misbehaving.
type Mode string

// The modes. Every one serves /health and /v1/models normally, so llmgate
// gets as far as sending load.
const (
	// Status500 answers every completion with 500 and a JSON error body.
	Status500 Mode = "500"
	// CloseMidStream sends two chunks, then closes the connection.
	CloseMidStream Mode = "close-mid-stream"
	// MalformedSSE sends lines that are neither SSE fields nor JSON.
	MalformedSSE Mode = "malformed-sse"
	// MalformedJSON sends data events whose JSON is cut or mistyped.
	MalformedJSON Mode = "malformed-json"
	// StallAfterFirstToken sends one chunk and then nothing until the
	// client goes away.
	StallAfterFirstToken Mode = "stall-after-first-token"
	// HugeLine sends one data line of HugeLineBytes without a newline.
	HugeLine Mode = "huge-line"
	// NoDone streams a whole answer with usage and closes without [DONE].
	NoDone Mode = "no-done"
	// UsageContradicts streams Tokens content chunks but reports a usage of
	// 2 completion tokens: fewer tokens than chunks that carried one.
	UsageContradicts Mode = "usage-contradicts"
	// SlowAccept serves normally but accepts each connection after
	// AcceptDelay.
	SlowAccept Mode = "slow-accept"
	// EchoAuth answers 401 with every request header (Authorization
	// included) and the server's own HF_TOKEN in the body.
	EchoAuth Mode = "echo-auth"
	// Inject answers 500 with a body full of workflow commands, terminal
	// escapes and markdown (InjectBody), and reports InjectBody as its
	// version on /version.
	Inject Mode = "inject"
	// EndlessMetrics serves completions normally, but /metrics never ends:
	// EndlessMetricsBytes of distinct samples, then nothing until the
	// client goes away (so a test of an unbounded reader stays affordable).
	EndlessMetrics Mode = "endless-metrics"
	// InjectModel serves completions normally but lists one model whose id
	// is InjectModelID: workflow commands, markdown, references, autolinks
	// and a bidi override, in the name a results file and every report
	// records.
	InjectModel Mode = "inject-model"
)

// Modes lists every mode.
var Modes = []Mode{Status500, CloseMidStream, MalformedSSE, MalformedJSON, StallAfterFirstToken, HugeLine,
	NoDone, UsageContradicts, SlowAccept, EchoAuth, Inject, EndlessMetrics, InjectModel}

// Model is the one model the server lists.
const Model = "hostile-model"

// Tokens is how many content chunks a normal answer has.
const Tokens = 8

// HugeLineBytes is the length of HugeLine's line: 100 MB.
const HugeLineBytes = 100 << 20

// EndlessMetricsBytes is how much EndlessMetrics sends before it stalls.
const EndlessMetricsBytes = 48 << 20

// AcceptDelay is SlowAccept's delay before each accepted connection.
const AcceptDelay = 300 * time.Millisecond

// InjectBody is what Inject's 500 says: every way text could act where
// llmgate prints or publishes it.
const InjectBody = "boom\n::error file=a.go,line=1::injected\n::add-mask::x\n::stop-commands::tok\n##[error]legacy\n" +
	"\x1b[2J\x1b]0;title\x07 </details> <img src=x onerror=alert(1)> @octocat ![i](http://e.invalid/x.png) " +
	"<!-- llmgate:other-suite --> `code` | cell https://evil.example/x www.evil.example octo/gate#1 #2 GH-3\r::warning::after-cr"

// InjectModelID is InjectModel's model id.
const InjectModelID = "m\n::error title=Forged::from the model id </details><img src=x onerror=alert(1)> @team " +
	"https://evil.example/p www.evil.example octo/gate#1 #2 GH-3 \u202eevil"

// Server is a hostile server on loopback.
type Server struct {
	// URL is the server's base URL.
	URL  string
	srv  *httptest.Server
	mode Mode
	// hfToken is what EchoAuth reveals as the server's own secret.
	hfToken string
	// Completions counts completion requests.
	Completions atomic.Int64
	// MetricsBytes counts the bytes /metrics sent.
	MetricsBytes atomic.Int64
}

// Start starts a server in mode on 127.0.0.1. hfToken is the secret the
// server "has" in its environment (EchoAuth prints it). It stops when
// Close is called.
func Start(mode Mode, hfToken string) *Server {
	s := &Server{mode: mode, hfToken: hfToken}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	if mode == SlowAccept {
		s.srv.Listener = slowListener{s.srv.Listener}
	}
	s.srv.Start()
	s.URL = s.srv.URL
	return s
}

// Close stops the server, cutting open connections.
func (s *Server) Close() {
	s.srv.CloseClientConnections()
	s.srv.Close()
}

type slowListener struct{ net.Listener }

func (l slowListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		time.Sleep(AcceptDelay)
	}
	return c, err
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/health":
		return
	case "/v1/models":
		w.Header().Set("Content-Type", "application/json")
		id := Model
		if s.mode == InjectModel {
			id = InjectModelID
		}
		listed, _ := json.Marshal(id)
		fmt.Fprintf(w, `{"object":"list","data":[{"id":%s,"object":"model","max_model_len":4096}]}`, listed)
		return
	case "/metrics":
		s.metrics(w, r)
		return
	case "/version":
		version := "0.0.0-hostile"
		if s.mode == Inject {
			version = InjectBody // the server's description of itself is untrusted too
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"version": version})
		return
	case "/v1/completions", "/v1/chat/completions":
	default:
		http.NotFound(w, r)
		return
	}
	s.Completions.Add(1)
	io.Copy(io.Discard, io.LimitReader(r.Body, 1<<20))
	chat := r.URL.Path == "/v1/chat/completions"
	switch s.mode {
	case Status500:
		http.Error(w, `{"object":"error","message":"internal error","type":"InternalServerError","code":500}`, http.StatusInternalServerError)
		return
	case EchoAuth:
		var b strings.Builder
		fmt.Fprintf(&b, "unauthorized; you sent:\n")
		for k, v := range r.Header {
			fmt.Fprintf(&b, "%s: %s\n", k, strings.Join(v, ","))
		}
		fmt.Fprintf(&b, "my HF_TOKEN=%s argv=[vllm serve --api-key %s]\n", s.hfToken, strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
		http.Error(w, b.String(), http.StatusUnauthorized)
		return
	case Inject:
		http.Error(w, InjectBody, http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fl := w.(http.Flusher)
	chunk := func(text string, completion int) {
		tq, _ := json.Marshal(text)
		usage := fmt.Sprintf(`,"usage":{"prompt_tokens":4,"total_tokens":%d,"completion_tokens":%d}`, 4+completion, completion)
		if chat {
			fmt.Fprintf(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":%s},\"finish_reason\":null}]%s}\n\n", tq, usage)
		} else {
			fmt.Fprintf(w, "data: {\"id\":\"c\",\"object\":\"text_completion\",\"choices\":[{\"index\":0,\"text\":%s,\"finish_reason\":null}]%s}\n\n", tq, usage)
		}
		fl.Flush()
	}
	final := func(completion int) {
		fmt.Fprintf(w, "data: {\"id\":\"c\",\"choices\":[],\"usage\":{\"prompt_tokens\":4,\"total_tokens\":%d,\"completion_tokens\":%d}}\n\n", 4+completion, completion)
		fl.Flush()
	}
	switch s.mode {
	case CloseMidStream:
		chunk("tok", 1)
		chunk("tok", 2)
		if hj, ok := w.(http.Hijacker); ok {
			if c, _, err := hj.Hijack(); err == nil {
				c.Close()
			}
		}
		return
	case MalformedSSE:
		io.WriteString(w, "this is not server-sent events\n<html>oops</html>\n\n")
		fl.Flush()
		return
	case MalformedJSON:
		io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"text\":\"tok\"\n\ndata: {\"choices\":\"nope\"}\n\n")
		fl.Flush()
		return
	case StallAfterFirstToken:
		chunk("tok", 1)
		<-r.Context().Done()
		return
	case HugeLine:
		io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"text\":\"")
		line := []byte(strings.Repeat("A", 1<<20))
		for i := 0; i < HugeLineBytes>>20; i++ {
			if _, err := w.Write(line); err != nil {
				return
			}
		}
		fl.Flush()
		return
	}
	for i := 1; i <= Tokens; i++ {
		chunk("tok", i)
	}
	switch s.mode {
	case NoDone:
		final(Tokens)
		return
	case UsageContradicts:
		final(2)
	default:
		final(Tokens)
	}
	io.WriteString(w, "data: [DONE]\n\n")
	fl.Flush()
}

// metrics serves a small vLLM /metrics page, or, in EndlessMetrics, one that
// never ends.
func (s *Server) metrics(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	page := "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{model_name=\"" + Model + "\"} 1\n"
	n, _ := io.WriteString(w, page)
	s.MetricsBytes.Add(int64(n))
	if s.mode != EndlessMetrics {
		return
	}
	// distinct samples, so a parser that keeps the page keeps all of it
	fl := w.(http.Flusher)
	var buf strings.Builder
	for i := 0; r.Context().Err() == nil && s.MetricsBytes.Load() < EndlessMetricsBytes; i++ {
		buf.Reset()
		for j := 0; j < 1024; j++ {
			fmt.Fprintf(&buf, "vllm:num_requests_running{model_name=%q,shard=\"%d\"} 1\n", Model, i*1024+j)
		}
		n, err := io.WriteString(w, buf.String())
		s.MetricsBytes.Add(int64(n))
		if err != nil {
			return
		}
		fl.Flush()
	}
	<-r.Context().Done()
}
