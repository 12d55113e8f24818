package load

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
)

// A workload makes the request for each sequence number. Implementations
// are safe for concurrent use and deterministic under the run's seed (a
// conversation's later turns also depend on the answers it got).
type workload interface {
	next(seq int) *request
}

// API paths.
const (
	pathCompletions = "/v1/completions"
	pathChat        = "/v1/chat/completions"
)

// Token ids of random prompts are drawn from [tokenLow, tokenHigh): inside
// the vocabulary of every common model family (32k and up) and clear of the
// special tokens at the low end.
const (
	tokenLow  = 1000
	tokenHigh = 30000
)

// newWorkload builds the workload cfg asks for.
func newWorkload(cfg Config) (workload, error) {
	w := cfg.Workload
	b := bodyMaker{model: cfg.Model, ignoreEOS: w.IgnoreEOS == nil || *w.IgnoreEOS}
	switch w.Kind {
	case WorkloadRandom, "":
		return &randomWorkload{w: w, seed: cfg.Seed, b: b}, nil
	case WorkloadPrefix:
		return newPrefixWorkload(w, cfg.Seed, b)
	case WorkloadStructured:
		// ignore_eos would make the model write past the end of the JSON
		b.ignoreEOS = w.IgnoreEOS != nil && *w.IgnoreEOS
		return newStructuredWorkload(w, cfg.Seed, b)
	case WorkloadConversation:
		return newConversationWorkload(w, cfg.Seed, b)
	case WorkloadDataset:
		return newDatasetWorkload(w, cfg.Seed, b)
	}
	return nil, fmt.Errorf("unknown workload kind %q (want random, prefix, structured, conversation or dataset)", w.Kind)
}

// rng returns a generator for one (seed, stream, item) so that each prompt
// is the same whatever order requests are made in.
func rng(seed int64, stream, item uint64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed)^stream*0x9e3779b97f4a7c15, item))
}

// length draws a length around n, uniform over [n(1-r), n(1+r)] like vLLM's
// random dataset, and at least 1.
func length(r *rand.Rand, n int, ratio float64) int {
	if ratio <= 0 || n <= 0 {
		return max(n, 1)
	}
	lo := int(float64(n) * (1 - ratio))
	hi := int(float64(n) * (1 + ratio))
	if hi < lo {
		hi = lo
	}
	return max(lo+r.IntN(hi-lo+1), 1)
}

func tokenIDs(r *rand.Rand, n int) []int {
	ids := make([]int, n)
	for i := range ids {
		ids[i] = tokenLow + r.IntN(tokenHigh-tokenLow)
	}
	return ids
}

// words are common English words that most tokenizers keep as one token
// each with their leading space, so n words make a prompt of about n tokens.
var words = strings.Fields(`the of and to in is was for on are as with his they at be this from have or by one had
not but what all were when we there can an your which their said if do will each about how up out them then she
many some so these would other into has more her two like him see time could no make than first been its who now
people my made over did down only way find use may water long little very after words called just where most know`)

// text returns about n tokens of words.
func text(r *rand.Rand, n int) string {
	var sb strings.Builder
	sb.Grow(n * 5)
	for i := range n {
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(words[r.IntN(len(words))])
	}
	return sb.String()
}

// message is one chat message.
type message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// body is the JSON of a streamed completion or chat completion request.
type body struct {
	Model          string          `json:"model"`
	Prompt         any             `json:"prompt,omitempty"`
	Messages       []message       `json:"messages,omitempty"`
	MaxTokens      int             `json:"max_tokens"`
	MinTokens      int             `json:"min_tokens,omitempty"`
	IgnoreEOS      bool            `json:"ignore_eos,omitempty"`
	Stream         bool            `json:"stream"`
	StreamOptions  streamOptions   `json:"stream_options"`
	ResponseFormat *responseFormat `json:"response_format,omitempty"`
}

type streamOptions struct {
	IncludeUsage         bool `json:"include_usage"`
	ContinuousUsageStats bool `json:"continuous_usage_stats"`
}

type responseFormat struct {
	Type       string     `json:"type"`
	JSONSchema jsonSchema `json:"json_schema"`
}

type jsonSchema struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
}

// bodyMaker fills the fields every request shares.
type bodyMaker struct {
	model     string
	ignoreEOS bool
}

// completion returns a /v1/completions request for prompt (token ids or text).
func (m bodyMaker) completion(prompt any, maxTokens int) *request {
	return m.request(pathCompletions, body{Prompt: prompt}, maxTokens)
}

// chat returns a /v1/chat/completions request for msgs.
func (m bodyMaker) chat(msgs []message, maxTokens int, rf *responseFormat) *request {
	return m.request(pathChat, body{Messages: msgs, ResponseFormat: rf}, maxTokens)
}

func (m bodyMaker) request(path string, b body, maxTokens int) *request {
	b.Model = m.model
	b.MaxTokens = maxTokens
	if m.ignoreEOS {
		b.IgnoreEOS = true
		b.MinTokens = maxTokens
	}
	b.Stream = true
	b.StreamOptions = streamOptions{IncludeUsage: true, ContinuousUsageStats: true}
	raw, err := json.Marshal(b)
	if err != nil {
		panic("load: marshal request body: " + err.Error()) // only plain data: cannot happen
	}
	return &request{path: path, body: raw, maxTokens: maxTokens}
}
