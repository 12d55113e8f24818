package serverinfo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/llmgate/llmgate/internal/telemetry"
	"github.com/llmgate/llmgate/untrusted"
)

// Options say what Discover asks of the server and how.
type Options struct {
	// BaseURL is the server's root (see BaseURL).
	BaseURL string
	// APIKey is sent as a bearer token when set.
	APIKey string
	// Model is the served name the generation checks use; "" takes the
	// only model listed (none are made when several are listed).
	Model string
	// IdleWait is how long a connection is left idle to see the server
	// close it; 0 skips the check.
	IdleWait time.Duration
	// Client sends the requests; nil means http.DefaultClient.
	Client *http.Client
	// Generate makes the checks that need generation requests (token ids,
	// role chunk, usage, ignore_eos, min_tokens: three short answers).
	Generate bool
}

// client is o.Client, or a client of its own whose connections done
// closes: none of Discover's or a reset's is left open beside the run that
// follows (a run on a loaded machine kept fewer requests in flight with
// them left open).
func (o Options) client() (hc *http.Client, done func()) {
	if o.Client != nil {
		return o.Client, func() {}
	}
	hc = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	return hc, hc.CloseIdleConnections
}

// The answer length Discover asks for: short answers, long enough that a server which stops
// on its own is unlikely to reach them by chance.
const (
	askedTokens = 24
	// MaxMetricsBytes bounds the /metrics page Discover reads.
	MaxMetricsBytes = 4 << 20
)

// Discover asks the server what it supports. It never fails: what could not
// be found out is marked so in the Features (a zero Status, Known false).
func Discover(ctx context.Context, o Options) *Features {
	f := &Features{BaseURL: o.BaseURL, TemplatePrefix: -1}
	var idle *IdleWatch
	if o.IdleWait > 0 {
		idle = WatchIdle(ctx, o.BaseURL, o.IdleWait)
	}
	hc, done := o.client()
	defer done()
	models, err := Models(ctx, hc, o.BaseURL, o.APIKey)
	f.Models = models
	if err != nil {
		f.ModelsError = err.Error()
	}
	f.Model = o.Model
	if m, _, ok := Find(models, o.Model); ok {
		f.Model = m.ID // the name the server lists ("tiny:latest" for "tiny")
	}
	if f.Model == "" && len(models) == 1 {
		f.Model = models[0].ID
	}
	f.Health = endpoint(get(ctx, hc, o.BaseURL, "/health", "", 1<<16))
	var vcode int
	f.ServerVersion, vcode = version(ctx, hc, o.BaseURL)
	f.Version = Endpoint{Status: vcode}
	f.findMetrics(ctx, hc, o)
	f.checkTokenize(ctx, hc, o)
	f.Reset = endpoint(do(ctx, hc, http.MethodPost, o.BaseURL, "/reset_prefix_cache", o.APIKey, nil, 1<<16))
	if o.Generate && f.Model != "" {
		f.checkGeneration(ctx, hc, o)
	}
	if idle != nil {
		idle.Wait(ctx)
		idle.Stop()
		idle.fill(f)
	}
	return f
}

// endpoint turns an answer into an Endpoint.
func endpoint(code int, _ []byte, err error) Endpoint {
	e := Endpoint{Status: code}
	if err != nil && code == 0 {
		e.Err = untrusted.Short(err.Error(), 300)
	}
	return e
}

func (f *Features) findMetrics(ctx context.Context, hc *http.Client, o Options) {
	code, b, err := get(ctx, hc, o.BaseURL, "/metrics", o.APIKey, MaxMetricsBytes)
	f.Metrics = endpoint(code, b, err)
	if err != nil || code != http.StatusOK {
		return
	}
	snap, perr := telemetry.ParseServerMetrics(bytes.NewReader(b))
	if perr != nil {
		f.Metrics.Err = untrusted.Short(perr.Error(), 300)
		return
	}
	f.MetricsFamily = snap.Family
}

// checkTokenize asks /tokenize to count a text and two different chat
// messages: the tokens the messages share at the start are the template's.
func (f *Features) checkTokenize(ctx context.Context, hc *http.Client, o Options) {
	type answer struct {
		Count  *int  `json:"count"`
		Tokens []int `json:"tokens"`
	}
	ask := func(body map[string]any) (answer, Endpoint) {
		body["model"] = f.Model
		raw, _ := json.Marshal(body)
		code, b, err := do(ctx, hc, http.MethodPost, o.BaseURL, "/tokenize", o.APIKey, bytes.NewReader(raw), 1<<20)
		e := endpoint(code, b, err)
		var a answer
		if e.OK() && (json.Unmarshal(b, &a) != nil || a.Count == nil) {
			e.Err = "the answer has no count"
		}
		return a, e
	}
	_, f.Tokenize = ask(map[string]any{"prompt": "hello world"})
	if !f.Tokenize.OK() || f.Tokenize.Err != "" {
		if f.Tokenize.OK() {
			f.Tokenize.Status = 0 // answered, but not as vLLM's does: no use
		}
		return
	}
	a, ea := ask(map[string]any{"messages": []map[string]string{{"role": "user", "content": "alpha"}}})
	b, eb := ask(map[string]any{"messages": []map[string]string{{"role": "user", "content": "omega"}}})
	if !ea.OK() || !eb.OK() || len(a.Tokens) == 0 || len(b.Tokens) == 0 {
		return
	}
	n := 0
	for n < min(len(a.Tokens), len(b.Tokens)) && a.Tokens[n] == b.Tokens[n] {
		n++
	}
	f.TemplatePrefix = n
}

// checkGeneration makes the three short requests: a token-id prompt, a
// completion with ignore_eos (its usage), and a chat answer with
// min_tokens and no ignore_eos (its usage and role).
func (f *Features) checkGeneration(ctx context.Context, hc *http.Client, o Options) {
	// token ids: ids inside every common vocabulary, clear of the specials
	s, _, err := stream(ctx, hc, o.BaseURL, "/v1/completions", o.APIKey, map[string]any{
		"model": f.Model, "prompt": []int{1000, 2000, 3000, 4000}, "max_tokens": 1})
	if errors.Is(err, errStalled) {
		f.TokenIDs.Note = untrusted.Short(err.Error(), 300)
		return // a server that stalls would stall the other checks too
	}
	switch {
	case err != nil:
		f.TokenIDs.Note = untrusted.Short(err.Error(), 300)
	case s.status == http.StatusOK:
		f.TokenIDs = Check{Known: true, Supported: true}
	case s.status == http.StatusBadRequest || s.status == http.StatusUnprocessableEntity:
		f.TokenIDs = Check{Known: true, Note: fmt.Sprintf("http %d: %s", s.status, untrusted.Short(strings.TrimSpace(string(s.body)), 200))}
	default:
		f.TokenIDs.Note = fmt.Sprintf("http %d", s.status)
	}

	// a completion asked for askedTokens with ignore_eos
	s, n, err := stream(ctx, hc, o.BaseURL, "/v1/completions", o.APIKey, map[string]any{
		"model": f.Model, "prompt": "Say one word.", "max_tokens": askedTokens, "ignore_eos": true})
	f.IgnoreEOS = lengthCheck(s, n, err)
	if err == nil && s.status == http.StatusOK {
		f.CompletionsUsage = s.usage()
	}
	if errors.Is(err, errStalled) {
		return
	}

	// a chat answer asked for askedTokens with min_tokens, no ignore_eos
	s, n, err = stream(ctx, hc, o.BaseURL, "/v1/chat/completions", o.APIKey, map[string]any{
		"model": f.Model, "messages": []map[string]string{{"role": "user", "content": "Say one word."}},
		"max_tokens": askedTokens, "min_tokens": askedTokens})
	f.MinTokens = lengthCheck(s, n, err)
	if err == nil && s.status == http.StatusOK {
		f.ChatUsage = s.usage()
		f.Role = Role{TTFT: s.ttft}
		switch {
		case s.content == 0:
		case s.role > 0:
			f.Role.Kind, f.Role.Lead = RoleChunk, s.ttft-s.role
		case s.roleInFirst:
			f.Role.Kind = RoleInFirstToken
		default:
			f.Role.Kind = RoleNone
		}
	}
}

// lengthCheck judges an answer asked for askedTokens.
func lengthCheck(s *streamed, n int, err error) LengthCheck {
	switch {
	case err != nil:
		return LengthCheck{Note: untrusted.Short(err.Error(), 300)}
	case s.status != http.StatusOK:
		return LengthCheck{Note: fmt.Sprintf("http %d: %s", s.status, untrusted.Short(strings.TrimSpace(string(s.body)), 200))}
	}
	return LengthCheck{Asked: askedTokens, Got: n}
}
