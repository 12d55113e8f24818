package load

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strings"

	"github.com/llmgate/llmgate/runspec"
)

// A workload makes the request for each slot. Implementations are safe for
// concurrent use and deterministic under the run's prompt key (a
// conversation's later turns also depend on the answers it got).
type workload interface {
	next(s slot) *request
}

// slot is one request's place in a run: its sequence number (warmup
// included), its phase, and its index within that phase. Prompt content
// derives from (seed, run name, phase, index), so the measured requests of
// a run get the same prompts whatever its warmup, and no two requests, runs
// or phases share a prompt unless the workload declares a shared prefix.
type slot struct {
	seq    int
	warmup bool
	index  int
	// stage is the stage of a staged load the slot is sent in (from 1);
	// 0 without stages and for the warmup.
	stage int
}

// item is the slot's key for rng: its index, with the top bit set for the
// warmup phase.
func (s slot) item() uint64 {
	it := uint64(s.index)
	if s.warmup {
		it |= 1 << 63
	}
	return it
}

// promptKey is what every prompt of a run derives from besides its slot:
// the suite's seed and the run's name. Baseline and candidate runs of the
// same run share it, and so get identical prompts.
type promptKey struct {
	seed int64
	salt uint64 // FNV-1a of the run name, 0 for no name
}

func newPromptKey(seed int64, runName string) promptKey {
	k := promptKey{seed: seed}
	if runName != "" {
		h := fnv.New64a()
		h.Write([]byte(runName))
		k.salt = h.Sum64()
	}
	return k
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
	if len(cfg.Mix) > 0 {
		return newMixWorkload(cfg)
	}
	w := cfg.Workload
	b := bodyMaker{model: cfg.Model, ignoreEOS: w.IgnoreEOS == nil || *w.IgnoreEOS, extra: cfg.Request.ExtraBody}
	k := newPromptKey(cfg.Seed, cfg.RunName)
	if w.Tools != "" {
		if k := bodyMemberOf(cfg.Request.ExtraBody, "tools", "tool_choice"); k != "" {
			return nil, fmt.Errorf("extra_body sets %q, which the workload's tools set: give it in one place", k)
		}
		ts, err := newToolSet(w.Tools, w.ToolChoice)
		if err != nil {
			return nil, err
		}
		b.tools = ts
		// ignore_eos would make the model write on past its tool call
		b.ignoreEOS = w.IgnoreEOS != nil && *w.IgnoreEOS
	}
	switch w.Kind {
	case runspec.WorkloadRandom, "":
		return &randomWorkload{w: w, key: k, b: b, text: w.TextPrompts}, nil
	case runspec.WorkloadPrefix:
		return newPrefixWorkload(w, k, b)
	case runspec.WorkloadStructured:
		// ignore_eos would make the model write past the end of the JSON
		b.ignoreEOS = w.IgnoreEOS != nil && *w.IgnoreEOS
		return newStructuredWorkload(w, k, b)
	case runspec.WorkloadConversation:
		return newConversationWorkload(w, k, b, closedLoop(cfg.Load))
	case runspec.WorkloadDataset:
		return newDatasetWorkload(w, cfg.Seed, b)
	case runspec.WorkloadTrace:
		return newTraceWorkload(cfg, k, b)
	}
	return nil, fmt.Errorf("unknown workload kind %q (want random, prefix, structured, conversation, dataset or trace)", w.Kind)
}

// rng returns a generator for one (key, stream, item) so that each prompt
// is the same whatever order requests are made in. The stream says what
// is drawn (a random prompt, a shared prefix, a conversation turn).
func rng(k promptKey, stream, item uint64) *rand.Rand {
	return rand.New(rand.NewPCG(splitmix(uint64(k.seed)^stream*0x9e3779b97f4a7c15), splitmix(item^splitmix(k.salt))))
}

// splitmix is SplitMix64's finaliser: it spreads nearby keys apart.
func splitmix(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
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

// text returns n words dealt from words as from a deck, shuffled afresh
// for each pass: every full pass holds each word once, so the tokens of a
// text stray from n times the words' mean cost far less than they would
// with independent draws (the words' costs differ, from one token to
// several). Without a cost table from /tokenize this is what keeps text
// prompts near their length.
func text(r *rand.Rand, n int) string {
	var sb strings.Builder
	sb.Grow(n * 5)
	deck := make([]int, len(words))
	for i := range deck {
		deck[i] = i
	}
	for i := range n {
		k := i % len(deck)
		if k == 0 {
			r.Shuffle(len(deck), func(a, b int) { deck[a], deck[b] = deck[b], deck[a] })
		}
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(words[deck[k]])
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
	// extra is the suite's extra body members, encoded once
	// (runspec.Request.ExtraBody): spliced in before the body's closing
	// brace, so a request costs a copy of them and no re-encoding.
	extra []byte
	// tools, when set, are the workload's tools, sent on every chat
	// request and judging its tool calls.
	tools *toolSet
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
	if m.tools != nil && path == pathChat {
		raw = spliceMembers(raw, m.tools.members)
	}
	raw = spliceMembers(raw, m.extra)
	req := &request{path: path, body: raw, maxTokens: maxTokens}
	if path == pathChat {
		req.tools = m.tools
	}
	if m.ignoreEOS {
		req.wantOut = maxTokens
	}
	return req
}

// spliceMembers returns the JSON object obj with members (an object's
// members without braces) added at its end; obj's own members never
// repeat among them (the suite refuses those keys), so no key is sent
// twice.
func spliceMembers(obj, members []byte) []byte {
	if len(members) == 0 || len(obj) < 2 || obj[len(obj)-1] != '}' {
		return obj
	}
	out := make([]byte, 0, len(obj)+1+len(members))
	out = append(out, obj[:len(obj)-1]...)
	if len(obj) > 2 { // {}: no member to follow
		out = append(out, ',')
	}
	out = append(out, members...)
	return append(out, '}')
}
