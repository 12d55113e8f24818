// Package fakeserver is an OpenAI-compatible server on loopback for tests
// that must meet servers llmgate did not write: Ollama (":latest" model
// names, usage of zeros on every chunk, no /metrics, /tokenize,
// /reset_prefix_cache, /health or /version), SGLang and llama.cpp's
// server (their own /metrics names), a vLLM image that serves another
// model than the one asked for, a chat template with a long shared
// prefix, answers cut short whatever ignore_eos says, idle keep-alive
// connections closed after a timeout, a reasoning model that thinks
// before it answers. Each quirk is a Config field, so a
// test sets exactly the behaviour it checks, and the timing is known:
// the first content chunk of an answer leaves TTFT after the request
// arrived, each later one ITL after the one before, on a schedule kept
// from the arrival (no drift), so measured figures can be checked against
// that truth.
//
// Tokens are words: a text is as many tokens as it has whitespace-separated
// fields, a token-id prompt as many as it has ids, a chat prompt is the
// template's shared prefix, each message's words and the template's
// suffix. /tokenize (when served) returns those tokens, so two different
// messages share exactly TemplatePrefix tokens.
//
// It is not internal/hostile: that server breaks promises on purpose (bad
// streams, endless pages); this one keeps its promises, only not vLLM's.
package fakeserver

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// ToolCall is the call a tool-calling fake answers with: the function's
// name and its arguments' pieces, as streamed.
type ToolCall struct {
	Name      string
	Arguments []string
}

// RoleChunk says when a chat stream sends the assistant's role.
type RoleChunk int

const (
	// RoleWithFirstToken sends a role chunk (role, empty content) right
	// before the first content chunk, as vLLM does.
	RoleWithFirstToken RoleChunk = iota
	// RoleEarly sends the role chunk as soon as the request arrived,
	// TTFT before the first token (some gateways and simulators).
	RoleEarly
	// RoleInFirstToken sends no role chunk of its own: the first content
	// chunk carries the role (Ollama).
	RoleInFirstToken
)

// Usage says what a stream reports in usage.
type Usage int

const (
	// UsageVLLM is vLLM's: a final usage-only chunk when
	// stream_options.include_usage is set, and usage counting up on every
	// chunk when continuous_usage_stats is set too.
	UsageVLLM Usage = iota
	// UsageFinalOnly sends the final usage chunk but ignores
	// continuous_usage_stats.
	UsageFinalOnly
	// UsageZeroed puts a usage of zeros on every content chunk (Ollama's
	// completions), then the final usage chunk with the true counts.
	UsageZeroed
	// UsageNone never reports usage.
	UsageNone
)

// Metrics is the family of the /metrics page.
type Metrics int

const (
	// MetricsVLLM serves vllm: names.
	MetricsVLLM Metrics = iota
	// MetricsSGLang serves sglang: names (num_running_reqs, num_queue_reqs,
	// token_usage, prompt_tokens_total, cached_tokens_total,
	// num_retracted_requests_total).
	MetricsSGLang
	// MetricsLlamaCpp serves llamacpp: names (requests_processing,
	// requests_deferred, kv_cache_usage_ratio).
	MetricsLlamaCpp
)

// Paths the server may leave out (404), see Config.Missing.
const (
	PathMetrics     = "/metrics"
	PathTokenize    = "/tokenize"
	PathReset       = "/reset_prefix_cache"
	PathHealth      = "/health"
	PathVersion     = "/version"
	PathModels      = "/v1/models"
	PathCompletions = "/v1/completions"
	PathChat        = "/v1/chat/completions"
)

// Model is one entry of /v1/models.
type Model struct {
	// ID is the name requests use.
	ID string
	// Root is the model path it serves ("" leaves the field out, as
	// servers other than vLLM do).
	Root string
	// MaxModelLen is the context reported ("" when 0) and, when
	// Config.EnforceContext is set, enforced.
	MaxModelLen int
}

// Config is one server's behaviour. The zero value is a vLLM-like server
// of one model, "fake-model", that answers every token at once.
type Config struct {
	// Models are listed by /v1/models, in order; none means {ID: "fake-model"}.
	Models []Model
	// AcceptLatestTag serves a request for "name" with the model listed as
	// "name:latest" (Ollama).
	AcceptLatestTag bool
	// EnforceContext answers 400, as vLLM does, when a prompt reaches the
	// model's MaxModelLen or prompt plus max_tokens (16 by default on
	// completions) exceeds it.
	EnforceContext bool

	// TTFT is from the request's arrival to its first content chunk; ITL
	// is between content chunks.
	TTFT, ITL time.Duration
	// RoleChunk says when a chat stream sends the role.
	RoleChunk RoleChunk
	// CompletionsUsage and ChatUsage say what each endpoint's stream
	// reports in usage.
	CompletionsUsage, ChatUsage Usage

	// StopAt, when above 0, is where an answer ends by itself (an EOS):
	// after StopAt tokens unless max_tokens comes first, or ignore_eos
	// (when honoured) makes it run to max_tokens, or min_tokens (when
	// honoured) makes it longer.
	StopAt int
	// IgnoresEOSFlag and IgnoresMinTokens make the server ignore
	// ignore_eos and min_tokens (Ollama, other simulators).
	IgnoresEOSFlag, IgnoresMinTokens bool

	// ReasoningTokens, when above 0, makes the first ReasoningTokens tokens
	// of a chat answer reasoning, each sent in the delta's ReasoningField
	// instead of its content, as vLLM's reasoning parsers do; the answer's
	// tokens follow on the same schedule, so the first answer token leaves
	// TTFT + ReasoningTokens x ITL after the request arrived. An answer of
	// max_tokens or fewer tokens is all reasoning. Completions are plain.
	ReasoningTokens int
	// ReasoningField is the delta field of the reasoning:
	// "reasoning_content" when "" (older vLLM), or "reasoning" (newer).
	ReasoningField string
	// ReportReasoningTokens puts usage.completion_tokens_details
	// .reasoning_tokens in a chat answer's usage, as OpenAI's API does
	// (vLLM does not).
	ReportReasoningTokens bool
	// ToolCall, when set, answers a chat request that offers tools (and a
	// tool_choice other than "none") with one call in vLLM's delta shape:
	// its first chunk the call's index, id, type and function.name, each
	// later chunk one piece of its arguments, a token a chunk on the
	// TTFT/ITL schedule, so the last piece leaves TTFT + len(Arguments) x
	// ITL after the request arrived; finish_reason "tool_calls".
	ToolCall *ToolCall

	// NoTokenIDs answers a token-id prompt with 400 (Ollama wants text).
	NoTokenIDs bool
	// Missing paths answer 404 (PathMetrics, PathTokenize, PathReset,
	// PathHealth, PathVersion).
	Missing []string
	// Metrics is the /metrics page's family.
	Metrics Metrics
	// TemplatePrefix and TemplateSuffix are the tokens a chat template
	// puts before the first message and after the last (the assistant's
	// header); every chat prompt starts with the same TemplatePrefix.
	TemplatePrefix, TemplateSuffix int
	// BlockSize is the prefix cache's block in tokens (16 when 0): a
	// prompt's leading full blocks seen before are hits.
	BlockSize int
	// ResetWhileBusyIgnored makes /reset_prefix_cache answer 200 without
	// resetting while a request is in flight, as vLLM does.
	ResetWhileBusyIgnored bool
	// ResetIgnored makes /reset_prefix_cache answer 200 and never reset.
	ResetIgnored bool
	// IdleTimeout closes keep-alive connections idle this long (0: never).
	IdleTimeout time.Duration
	// Version is what /version answers ("0.0.0-fake" when "").
	Version string
	// OnGenerate, when set, is called as each generation request starts,
	// once it counts as in flight (tests wait on it instead of sleeping).
	OnGenerate func()
}

// Server is a running fake server.
type Server struct {
	// URL is the server's root, e.g. "http://127.0.0.1:40123".
	URL string

	cfg     Config
	srv     *httptest.Server
	missing map[string]bool

	inFlight atomic.Int64
	conns    atomic.Int64 // connections accepted
	hits     sync.Map     // path -> *atomic.Int64

	mu      sync.Mutex
	cache   map[uint64]bool // prefix cache: block hashes
	queries float64         // prompt tokens looked up in the cache
	cached  float64         // of which hits
	resets  int             // resets done
	ignored int             // resets answered 200 but not done
}

// Start starts a server with cfg on 127.0.0.1; it stops when t cleans up
// (or when Close is called).
func Start(t interface{ Cleanup(func()) }, cfg Config) *Server {
	s := New(cfg)
	t.Cleanup(s.Close)
	return s
}

// New starts a server with cfg on 127.0.0.1; call Close to stop it.
func New(cfg Config) *Server {
	if len(cfg.Models) == 0 {
		cfg.Models = []Model{{ID: "fake-model"}}
	}
	if cfg.BlockSize <= 0 {
		cfg.BlockSize = 16
	}
	if cfg.Version == "" {
		cfg.Version = "0.0.0-fake"
	}
	s := &Server{cfg: cfg, missing: map[string]bool{}, cache: map[uint64]bool{}}
	for _, p := range cfg.Missing {
		s.missing[p] = true
	}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	s.srv.Config.IdleTimeout = cfg.IdleTimeout
	s.srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.conns.Add(1)
		}
	}
	s.srv.Start()
	s.URL = s.srv.URL
	return s
}

// Close stops the server, cutting open connections. It is safe to call twice.
func (s *Server) Close() {
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Hits is how many requests path got (404s included).
func (s *Server) Hits(path string) int64 {
	if v, ok := s.hits.Load(path); ok {
		return v.(*atomic.Int64).Load()
	}
	return 0
}

// Conns is how many connections the server accepted.
func (s *Server) Conns() int64 { return s.conns.Load() }

// Resets is how many prefix-cache resets were done, and how many were
// answered 200 but not done (ResetWhileBusyIgnored).
func (s *Server) Resets() (done, ignored int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.resets, s.ignored
}

// PrefixCache is the cache's counters so far: prompt tokens looked up and
// those that hit.
func (s *Server) PrefixCache() (queries, hits float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.queries, s.cached
}

func (s *Server) count(path string) {
	v, _ := s.hits.LoadOrStore(path, new(atomic.Int64))
	v.(*atomic.Int64).Add(1)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	s.count(path)
	if s.missing[path] {
		http.NotFound(w, r)
		return
	}
	switch {
	case path == PathHealth && r.Method == http.MethodGet:
		w.WriteHeader(http.StatusOK)
	case path == PathVersion && r.Method == http.MethodGet:
		writeJSON(w, http.StatusOK, map[string]string{"version": s.cfg.Version})
	case path == PathModels && r.Method == http.MethodGet:
		s.models(w)
	case path == PathMetrics && r.Method == http.MethodGet:
		s.metrics(w)
	case path == PathTokenize && r.Method == http.MethodPost:
		s.tokenize(w, r)
	case path == PathReset && r.Method == http.MethodPost:
		s.reset(w)
	case (path == PathCompletions || path == PathChat) && r.Method == http.MethodPost:
		s.generate(w, r, path == PathChat)
	default:
		http.NotFound(w, r)
	}
}

func (s *Server) models(w http.ResponseWriter) {
	type card struct {
		ID          string `json:"id"`
		Object      string `json:"object"`
		Created     int64  `json:"created"`
		OwnedBy     string `json:"owned_by"`
		Root        string `json:"root,omitempty"`
		MaxModelLen int    `json:"max_model_len,omitempty"`
	}
	out := struct {
		Object string `json:"object"`
		Data   []card `json:"data"`
	}{Object: "list"}
	for _, m := range s.cfg.Models {
		out.Data = append(out.Data, card{ID: m.ID, Object: "model", Created: 1700000000, OwnedBy: "fake", Root: m.Root, MaxModelLen: m.MaxModelLen})
	}
	writeJSON(w, http.StatusOK, out)
}

// model finds the listed model a request names: itself, or with
// AcceptLatestTag its ":latest" entry.
func (s *Server) model(name string) (Model, bool) {
	for _, m := range s.cfg.Models {
		if m.ID == name || (s.cfg.AcceptLatestTag && m.ID == name+":latest") {
			return m, true
		}
	}
	return Model{}, false
}

func (s *Server) reset(w http.ResponseWriter) {
	s.mu.Lock()
	if s.cfg.ResetIgnored || (s.cfg.ResetWhileBusyIgnored && s.inFlight.Load() > 0) {
		s.ignored++
	} else {
		clear(s.cache)
		s.resets++
	}
	s.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}

// lookup counts prompt's tokens as cache queries, its leading full blocks
// seen before as hits, and caches its full blocks.
func (s *Server) lookup(prompt []int) {
	bs := s.cfg.BlockSize
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queries += float64(len(prompt))
	var h uint64 = 14695981039346656037
	hitting := true
	for end := bs; end <= len(prompt); end += bs {
		for _, id := range prompt[end-bs : end] {
			h = (h ^ uint64(id)) * 1099511628211
		}
		if hitting && s.cache[h] {
			s.cached += float64(bs)
		} else {
			hitting = false
		}
		s.cache[h] = true
	}
}

// Preset servers. Each is a Config a test can change further.

// VLLM behaves like vLLM serving model with a context of maxLen: every
// endpoint, a role chunk right before the first token, vLLM's usage and
// metrics, the context enforced, resets ignored while busy.
func VLLM(model string, maxLen int) Config {
	return Config{
		Models:                []Model{{ID: model, Root: model, MaxModelLen: maxLen}},
		EnforceContext:        true,
		ResetWhileBusyIgnored: true,
		Version:               "0.11.0",
	}
}

// Ollama behaves like Ollama's OpenAI API serving "name:latest": the tag
// may be left out of requests, completion chunks carry usage of zeros,
// the first chat chunk carries the role with the first token, token-id
// prompts are refused, answers end after stopAt tokens whatever
// ignore_eos and min_tokens say, and /metrics, /tokenize,
// /reset_prefix_cache, /health and /version answer 404.
func Ollama(name string, stopAt int) Config {
	return Config{
		Models:           []Model{{ID: name + ":latest"}},
		AcceptLatestTag:  true,
		RoleChunk:        RoleInFirstToken,
		CompletionsUsage: UsageZeroed,
		ChatUsage:        UsageFinalOnly,
		StopAt:           stopAt,
		IgnoresEOSFlag:   true,
		IgnoresMinTokens: true,
		NoTokenIDs:       true,
		Missing:          []string{PathMetrics, PathTokenize, PathReset, PathHealth, PathVersion},
	}
}

// SGLang behaves like SGLang serving model: its own /metrics names, and
// no /reset_prefix_cache (SGLang flushes its cache at /flush_cache).
func SGLang(model string, maxLen int) Config {
	c := VLLM(model, maxLen)
	c.Metrics = MetricsSGLang
	c.Missing = []string{PathReset}
	c.Version = "0.5.0"
	return c
}

// LlamaCpp behaves like llama.cpp's server: llamacpp: metrics, no
// /reset_prefix_cache, /tokenize or /version, no root in /v1/models.
func LlamaCpp(model string, maxLen int) Config {
	c := VLLM(model, maxLen)
	c.Models[0].Root = ""
	c.Metrics = MetricsLlamaCpp
	c.Missing = []string{PathReset, PathTokenize, PathVersion}
	return c
}

// OtherModel behaves like a vLLM image whose entrypoint ignored the
// positional model and serves its default, Qwen/Qwen3-0.6B.
func OtherModel() Config { return VLLM("Qwen/Qwen3-0.6B", 40960) }

// words counts a text's tokens: its whitespace-separated fields.
func words(s string) []string { return strings.Fields(s) }
