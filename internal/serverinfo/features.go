package serverinfo

import (
	"net/http"
	"time"

	"github.com/llmgate/llmgate/results"
)

// Features is what Discover found a server supports. Every part says
// whether it was found out (a zero Status or Known false: Discover could
// not tell) so that "not supported" and "not asked" stay apart.
type Features struct {
	// BaseURL is the server's root as asked.
	BaseURL string `json:"base_url"`
	// Models is what /v1/models lists; ModelsError why it could not be read.
	Models      []Model `json:"models"`
	ModelsError string  `json:"models_error,omitempty"`
	// Model is the served name the generation checks used ("" when none
	// could be picked: they were not made).
	Model string `json:"model,omitempty"`

	// Health, Version, Tokenize, Metrics and Reset are the answers to GET
	// /health, GET /version, POST /tokenize, GET /metrics and POST
	// /reset_prefix_cache.
	Health   Endpoint `json:"health"`
	Version  Endpoint `json:"version"`
	Tokenize Endpoint `json:"tokenize"`
	Metrics  Endpoint `json:"metrics"`
	Reset    Endpoint `json:"reset"`
	// ServerVersion is what /version said.
	ServerVersion string `json:"server_version,omitempty"`
	// MetricsFamily is whose names the /metrics page uses
	// (telemetry.MetricsVLLM, MetricsSGLang, MetricsLlamaCpp), "" when it
	// has none llmgate reads.
	MetricsFamily string `json:"metrics_family,omitempty"`
	// TemplatePrefix is how many tokens the chat template puts, the same,
	// before every conversation (two different messages tokenized by
	// /tokenize share them); -1 when unknown.
	TemplatePrefix int `json:"template_prefix"`

	// TokenIDs says whether /v1/completions took a prompt of token ids.
	TokenIDs Check `json:"token_ids"`
	// Role is when a chat stream's role arrives.
	Role Role `json:"role"`
	// CompletionsUsage and ChatUsage are what each endpoint's stream
	// reported in usage, asked for final and continuous usage.
	CompletionsUsage Usage `json:"completions_usage"`
	ChatUsage        Usage `json:"chat_usage"`
	// IgnoreEOS and MinTokens are whether an answer asked for N tokens
	// with ignore_eos, or with min_tokens N, got N.
	IgnoreEOS LengthCheck `json:"ignore_eos"`
	MinTokens LengthCheck `json:"min_tokens"`

	// IdleTimeout is how long the server kept an idle keep-alive
	// connection open before closing it; 0 when it was not seen to close
	// one (unknown), IdleWaited then says for how long it was watched.
	IdleTimeout time.Duration `json:"idle_timeout_ns,omitempty"`
	IdleWaited  time.Duration `json:"idle_waited_ns,omitempty"`
}

// Endpoint is a server's answer to one of Discover's requests.
type Endpoint struct {
	// Status is the HTTP status, 0 when no answer came (Err says why).
	Status int    `json:"status,omitempty"`
	Err    string `json:"error,omitempty"`
}

// OK reports a 200.
func (e Endpoint) OK() bool { return e.Status == http.StatusOK }

// Missing reports an answer that says the server has no such endpoint:
// 404, or 405 (a path it serves for another method only).
func (e Endpoint) Missing() bool {
	return e.Status == http.StatusNotFound || e.Status == http.StatusMethodNotAllowed
}

// Check is a yes-or-no feature.
type Check struct {
	// Known is false when Discover could not tell.
	Known bool `json:"known"`
	// Supported is the answer when Known.
	Supported bool `json:"supported,omitempty"`
	// Note is the server's refusal, or why Discover could not tell.
	Note string `json:"note,omitempty"`
}

// Kinds of Role.
const (
	// RoleChunk: a chunk of its own, with no content, before the first
	// token's (vLLM sends it together with the first token).
	RoleChunk = "chunk"
	// RoleInFirstToken: the first content chunk carries the role (Ollama).
	RoleInFirstToken = "first-token"
	// RoleNone: no chunk said the role.
	RoleNone = "none"
)

// Role is when a chat stream's role arrived.
type Role struct {
	// Kind is RoleChunk, RoleInFirstToken, RoleNone, or "" when unknown.
	Kind string `json:"kind,omitempty"`
	// Lead is how long before the first token the role chunk came (RoleChunk).
	Lead time.Duration `json:"lead_ns,omitempty"`
	// TTFT is the first token's arrival after the request was sent.
	TTFT time.Duration `json:"ttft_ns,omitempty"`
}

// Usage is what a stream reported in usage.
type Usage struct {
	// Known is false when the stream could not be read.
	Known bool `json:"known"`
	// Final: a usage-only chunk ended the stream with the counts.
	Final bool `json:"final,omitempty"`
	// Continuous: the content chunks carried usage that counted up.
	Continuous bool `json:"continuous,omitempty"`
	// Zeroed: the content chunks carried usage of zeros (Ollama).
	Zeroed bool `json:"zeroed,omitempty"`
}

// None reports a stream that gave no token counts at all.
func (u Usage) None() bool { return u.Known && !u.Final && !u.Continuous }

// LengthCheck is whether an answer got the tokens it asked for.
type LengthCheck struct {
	// Asked is the length asked for; Got what the answer had; 0 Asked:
	// not checked.
	Asked int `json:"asked,omitempty"`
	Got   int `json:"got,omitempty"`
	// Note says why it was not checked.
	Note string `json:"note,omitempty"`
}

// Known reports whether the check was made.
func (l LengthCheck) Known() bool { return l.Asked > 0 }

// Honoured reports whether the answer had the length asked for.
func (l LengthCheck) Honoured() bool { return l.Asked > 0 && l.Got == l.Asked }

// ModelCard returns the listed model called id.
func (f *Features) ModelCard(id string) (Model, bool) {
	for _, m := range f.Models {
		if m.ID == id {
			return m, true
		}
	}
	return Model{}, false
}

// Missing lists the features llmgate uses that the server lacks, each with
// what doing without it costs a run: the list every run on this server
// records and every report shows.
func (f *Features) Missing() []results.MissingFeature {
	var out []results.MissingFeature
	add := func(feature, cost string) {
		out = append(out, results.MissingFeature{Feature: feature, Cost: cost})
	}
	switch {
	case f.Metrics.Missing() || (f.Metrics.Status == 0 && f.Metrics.Err != ""):
		add("/metrics", "no server.* metrics (KV cache, queue, preemptions, prefix-cache hits), and no check of undeclared prefix-cache hits")
	case f.Metrics.OK() && f.MetricsFamily == "":
		add("/metrics", "the page has no vLLM, SGLang or llama.cpp metric: no server.* metrics, and no check of undeclared prefix-cache hits")
	}
	if f.Reset.Missing() {
		add("/reset_prefix_cache", "no prefix-cache reset before each run: a run may measure cache hits left by the one before (vLLM serves it with VLLM_SERVER_DEV_MODE=1)")
	}
	if f.Tokenize.Missing() || (f.Tokenize.Status == 0 && f.Tokenize.Err != "") {
		add("/tokenize", "text prompt lengths calibrated by usage (a fit over two requests), not counted by the server's tokenizer; the chat template's shared prefix is not measured")
	}
	if f.TokenIDs.Known && !f.TokenIDs.Supported {
		add("token-id prompts", "text prompts instead of token ids on /v1/completions: lengths by calibration, not exact")
	}
	if f.Health.Missing() {
		add("/health", "readiness and liveness read from /v1/models and any answer below 500")
	}
	if f.Version.Missing() {
		add("/version", "no server version in the results")
	}
	if f.CompletionsUsage.None() || f.ChatUsage.None() {
		add("usage in streams", "no token counts from the server: answer lengths counted by chunks, prompt lengths unchecked")
	}
	if f.IgnoreEOS.Known() && !f.IgnoreEOS.Honoured() {
		add("ignore_eos", "answers may end before max_tokens: their lengths are not the workload's")
	}
	if f.MinTokens.Known() && !f.MinTokens.Honoured() {
		add("min_tokens", "answers may end before the length asked for: their lengths are not the workload's")
	}
	return out
}
