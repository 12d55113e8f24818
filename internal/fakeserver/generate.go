package fakeserver

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"time"
)

// request is what the server reads of a completion or chat request.
type request struct {
	Model               string          `json:"model"`
	Prompt              json.RawMessage `json:"prompt"`
	Messages            []message       `json:"messages"`
	MaxTokens           *int            `json:"max_tokens"`
	MaxCompletionTokens *int            `json:"max_completion_tokens"`
	MinTokens           int             `json:"min_tokens"`
	IgnoreEOS           bool            `json:"ignore_eos"`
	Tools               json.RawMessage `json:"tools"`
	ToolChoice          json.RawMessage `json:"tool_choice"`
	Stream              bool            `json:"stream"`
	StreamOptions       *struct {
		IncludeUsage         bool `json:"include_usage"`
		ContinuousUsageStats bool `json:"continuous_usage_stats"`
	} `json:"stream_options"`
}

type message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Token ids: the template's are below 100, words' from 1000 up.
const (
	templateBase = 10
	suffixBase   = 60
	wordBase     = 1000
	wordSpan     = 29000
)

// wordID is a word's token id.
func wordID(w string) int {
	h := fnv.New32a()
	h.Write([]byte(w))
	return wordBase + int(h.Sum32()%wordSpan)
}

// textTokens is a text's token ids, a word a token.
func textTokens(s string) []int {
	ws := words(s)
	ids := make([]int, len(ws))
	for i, w := range ws {
		ids[i] = wordID(w)
	}
	return ids
}

// chatTokens applies the template: its shared prefix, each message's
// words, its suffix.
func (s *Server) chatTokens(msgs []message) []int {
	var ids []int
	for i := range s.cfg.TemplatePrefix {
		ids = append(ids, templateBase+i%50)
	}
	for _, m := range msgs {
		ids = append(ids, textTokens(m.Content)...)
	}
	for i := range s.cfg.TemplateSuffix {
		ids = append(ids, suffixBase+i%40)
	}
	return ids
}

// promptTokens reads a completion prompt: text, or token ids.
func (s *Server) promptTokens(raw json.RawMessage) ([]int, string) {
	var text string
	if json.Unmarshal(raw, &text) == nil {
		return textTokens(text), ""
	}
	var ids []int
	if json.Unmarshal(raw, &ids) == nil {
		if s.cfg.NoTokenIDs {
			return nil, "prompt must be a string"
		}
		return ids, ""
	}
	return nil, "prompt must be a string or a list of token ids"
}

// apiError answers in the OpenAI error shape vLLM uses.
func apiError(w http.ResponseWriter, status int, format string, a ...any) {
	typ := "BadRequestError"
	if status == http.StatusNotFound {
		typ = "NotFoundError"
	}
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": fmt.Sprintf(format, a...), "type": typ, "param": nil, "code": status}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}

// answerLen is how many tokens an answer gets.
func (s *Server) answerLen(req *request, maxTokens int) int {
	n := maxTokens
	if s.cfg.StopAt > 0 && s.cfg.StopAt < n && !(req.IgnoreEOS && !s.cfg.IgnoresEOSFlag) {
		n = s.cfg.StopAt
		if !s.cfg.IgnoresMinTokens && req.MinTokens > n {
			n = min(req.MinTokens, maxTokens)
		}
	}
	return n
}

func (s *Server) generate(w http.ResponseWriter, r *http.Request, chat bool) {
	arrived := time.Now()
	s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	if s.cfg.OnGenerate != nil {
		s.cfg.OnGenerate()
	}
	var req request
	if err := json.NewDecoder(io.LimitReader(r.Body, 16<<20)).Decode(&req); err != nil {
		apiError(w, http.StatusBadRequest, "invalid JSON: %v", err)
		return
	}
	m, ok := s.model(req.Model)
	if !ok {
		apiError(w, http.StatusNotFound, "The model `%s` does not exist.", req.Model)
		return
	}
	var prompt []int
	maxTokens := 16 // vLLM's completions default
	if chat {
		if len(req.Messages) == 0 {
			apiError(w, http.StatusBadRequest, "messages must be a non-empty list")
			return
		}
		prompt = s.chatTokens(req.Messages)
		// no limit given: up to the context, as vLLM's chat does
		maxTokens = 16
		if m.MaxModelLen > len(prompt) {
			maxTokens = m.MaxModelLen - len(prompt)
		}
		switch {
		case req.MaxCompletionTokens != nil:
			maxTokens = *req.MaxCompletionTokens
		case req.MaxTokens != nil:
			maxTokens = *req.MaxTokens
		}
	} else {
		var msg string
		if prompt, msg = s.promptTokens(req.Prompt); msg != "" {
			apiError(w, http.StatusBadRequest, "%s", msg)
			return
		}
		if req.MaxTokens != nil {
			maxTokens = *req.MaxTokens
		}
	}
	if maxTokens < 1 {
		apiError(w, http.StatusBadRequest, "max_tokens must be at least 1, got %d.", maxTokens)
		return
	}
	if s.cfg.EnforceContext && m.MaxModelLen > 0 {
		if len(prompt) >= m.MaxModelLen {
			apiError(w, http.StatusBadRequest, "This model's maximum context length is %d tokens. However, your request has %d input tokens.", m.MaxModelLen, len(prompt))
			return
		}
		if len(prompt)+maxTokens > m.MaxModelLen {
			apiError(w, http.StatusBadRequest, "'max_tokens' is too large: %d. This model's maximum context length is %d tokens and your request has %d input tokens.", maxTokens, m.MaxModelLen, len(prompt))
			return
		}
	}
	s.lookup(prompt)
	a := answer{s: s, w: w, r: r, req: &req, chat: chat, model: m.ID, prompt: len(prompt), n: s.answerLen(&req, maxTokens), max: maxTokens, arrived: arrived}
	if tc := s.cfg.ToolCall; tc != nil && chat && len(req.Tools) > 0 && string(req.Tools) != "null" && string(req.ToolChoice) != `"none"` {
		a.tool, a.n = tc, min(1+len(tc.Arguments), maxTokens)
	}
	if !req.Stream {
		a.whole()
		return
	}
	a.stream()
}

// answer is one generation being sent.
type answer struct {
	s       *Server
	w       http.ResponseWriter
	r       *http.Request
	req     *request
	chat    bool
	model   string
	prompt  int
	n, max  int
	arrived time.Time
	tool    *ToolCall // the call the answer makes, nil for a text answer
}

// wait sleeps until the k-th content chunk's time (k from 0): TTFT after
// arrival, then ITL apart; false when the client went away.
func (a *answer) wait(k int) bool {
	at := a.arrived.Add(a.s.cfg.TTFT + time.Duration(k)*a.s.cfg.ITL)
	d := time.Until(at)
	if d <= 0 {
		return a.r.Context().Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-a.r.Context().Done():
		return false
	}
}

func (a *answer) finish() string {
	if a.tool != nil {
		return "tool_calls"
	}
	if a.n < a.max {
		return "stop"
	}
	return "length"
}

func (a *answer) usage(completion int) map[string]any {
	u := map[string]any{"prompt_tokens": a.prompt, "completion_tokens": completion, "total_tokens": a.prompt + completion}
	if a.chat && a.s.cfg.ReportReasoningTokens {
		u["completion_tokens_details"] = map[string]int{"reasoning_tokens": a.reasoning(completion)}
	}
	return u
}

// reasoning is how many of an answer's first n tokens are reasoning.
func (a *answer) reasoning(n int) int {
	if !a.chat {
		return 0
	}
	return min(n, a.s.cfg.ReasoningTokens)
}

// reasoningField is the delta field reasoning goes in.
func (a *answer) reasoningField() string {
	if f := a.s.cfg.ReasoningField; f != "" {
		return f
	}
	return "reasoning_content"
}

// toolDelta is the k-th chunk's piece of the tool call: its head first,
// then the arguments' pieces.
func (a *answer) toolDelta(k int) map[string]any {
	if k == 0 {
		return map[string]any{"index": 0, "id": "chatcmpl-tool-fake1", "type": "function", "function": map[string]any{"name": a.tool.Name}}
	}
	return map[string]any{"index": 0, "function": map[string]any{"arguments": a.tool.Arguments[k-1]}}
}

// whole answers without streaming.
func (a *answer) whole() {
	if !a.wait(max(a.n-1, 0)) {
		return
	}
	text, thought := "", ""
	for k := range a.n {
		if k < a.reasoning(a.n) {
			thought += " think"
		} else {
			text += " tok"
		}
	}
	choice := map[string]any{"index": 0, "finish_reason": a.finish()}
	obj := "text_completion"
	if a.chat {
		msg := map[string]any{"role": "assistant", "content": text}
		if thought != "" {
			msg[a.reasoningField()] = thought
		}
		choice["message"] = msg
		obj = "chat.completion"
	} else {
		choice["text"] = text
	}
	writeJSON(a.w, http.StatusOK, map[string]any{"id": "fake-1", "object": obj, "created": a.arrived.Unix(), "model": a.model,
		"choices": []any{choice}, "usage": a.usage(a.n)})
}

// stream sends the answer as server-sent events.
func (a *answer) stream() {
	mode := a.s.cfg.CompletionsUsage
	if a.chat {
		mode = a.s.cfg.ChatUsage
	}
	opts := a.req.StreamOptions
	final := mode != UsageNone && opts != nil && opts.IncludeUsage
	continuous := mode == UsageVLLM && final && opts.ContinuousUsageStats
	a.w.Header().Set("Content-Type", "text/event-stream")
	a.w.WriteHeader(http.StatusOK)
	fl, _ := a.w.(http.Flusher)
	send := func(v any) bool {
		b, _ := json.Marshal(v)
		if _, err := fmt.Fprintf(a.w, "data: %s\n\n", b); err != nil {
			return false
		}
		if fl != nil {
			fl.Flush()
		}
		return true
	}
	obj := "text_completion"
	if a.chat {
		obj = "chat.completion.chunk"
	}
	chunk := func(choice map[string]any, usage map[string]any) map[string]any {
		c := map[string]any{"id": "fake-1", "object": obj, "created": a.arrived.Unix(), "model": a.model, "choices": []any{choice}}
		if usage != nil {
			c["usage"] = usage
		}
		return c
	}
	role := func() map[string]any {
		return chunk(map[string]any{"index": 0, "delta": map[string]any{"role": "assistant", "content": ""}, "finish_reason": nil}, nil)
	}
	if a.chat && a.s.cfg.RoleChunk == RoleEarly && !send(role()) {
		return
	}
	for k := range a.n {
		if !a.wait(k) {
			return
		}
		if k == 0 && a.chat && a.s.cfg.RoleChunk == RoleWithFirstToken && !send(role()) {
			return
		}
		var fin any
		if k == a.n-1 {
			fin = a.finish()
		}
		choice := map[string]any{"index": 0, "finish_reason": fin}
		if a.chat {
			delta := map[string]any{"content": " tok"}
			if k < a.reasoning(a.n) {
				delta = map[string]any{a.reasoningField(): " think"}
			}
			if a.tool != nil {
				delta = map[string]any{"tool_calls": []any{a.toolDelta(k)}}
			}
			if k == 0 && a.s.cfg.RoleChunk == RoleInFirstToken {
				delta["role"] = "assistant"
			}
			choice["delta"] = delta
		} else {
			choice["text"] = " tok"
		}
		var u map[string]any
		switch {
		case continuous:
			u = a.usage(k + 1)
		case mode == UsageZeroed:
			u = map[string]any{"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
		}
		if !send(chunk(choice, u)) {
			return
		}
	}
	if final {
		if !send(map[string]any{"id": "fake-1", "object": obj, "created": a.arrived.Unix(), "model": a.model, "choices": []any{}, "usage": a.usage(a.n)}) {
			return
		}
	}
	fmt.Fprint(a.w, "data: [DONE]\n\n")
	if fl != nil {
		fl.Flush()
	}
}

func (s *Server) tokenize(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model    string          `json:"model"`
		Prompt   json.RawMessage `json:"prompt"`
		Messages []message       `json:"messages"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 16<<20)).Decode(&req); err != nil {
		apiError(w, http.StatusBadRequest, "invalid JSON: %v", err)
		return
	}
	m, ok := s.model(req.Model)
	if !ok && req.Model != "" {
		apiError(w, http.StatusNotFound, "The model `%s` does not exist.", req.Model)
		return
	}
	var ids []int
	switch {
	case req.Messages != nil:
		ids = s.chatTokens(req.Messages)
	case req.Prompt != nil:
		var text string
		if json.Unmarshal(req.Prompt, &text) != nil {
			apiError(w, http.StatusBadRequest, "prompt must be a string")
			return
		}
		ids = textTokens(text)
	default:
		apiError(w, http.StatusBadRequest, "either prompt or messages must be given")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"count": len(ids), "max_model_len": m.MaxModelLen, "tokens": ids})
}

func (s *Server) metrics(w http.ResponseWriter) {
	s.mu.Lock()
	q, h := s.queries, s.cached
	s.mu.Unlock()
	running := float64(s.inFlight.Load())
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	lbl := fmt.Sprintf(`{model_name=%q}`, s.cfg.Models[0].ID)
	switch s.cfg.Metrics {
	case MetricsSGLang:
		fmt.Fprintf(w, "# TYPE sglang:num_running_reqs gauge\nsglang:num_running_reqs%s %g\n", lbl, running)
		fmt.Fprintf(w, "# TYPE sglang:num_queue_reqs gauge\nsglang:num_queue_reqs%s 0\n", lbl)
		fmt.Fprintf(w, "# TYPE sglang:token_usage gauge\nsglang:token_usage%s %g\n", lbl, min(running/100, 1))
		fmt.Fprintf(w, "# TYPE sglang:prompt_tokens_total counter\nsglang:prompt_tokens_total%s %g\n", lbl, q)
		fmt.Fprintf(w, "# TYPE sglang:cached_tokens_total counter\nsglang:cached_tokens_total{model_name=%q,cache_source=\"device\"} %g\n", s.cfg.Models[0].ID, h)
		fmt.Fprintf(w, "# TYPE sglang:num_retracted_requests_total counter\nsglang:num_retracted_requests_total%s 0\n", lbl)
	case MetricsLlamaCpp:
		fmt.Fprintf(w, "# TYPE llamacpp:requests_processing gauge\nllamacpp:requests_processing %g\n", running)
		fmt.Fprint(w, "# TYPE llamacpp:requests_deferred gauge\nllamacpp:requests_deferred 0\n")
		fmt.Fprintf(w, "# TYPE llamacpp:kv_cache_usage_ratio gauge\nllamacpp:kv_cache_usage_ratio %g\n", min(running/100, 1))
		fmt.Fprintf(w, "# TYPE llamacpp:prompt_tokens_total counter\nllamacpp:prompt_tokens_total %g\n", q)
	default:
		fmt.Fprintf(w, "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running%s %g\n", lbl, running)
		fmt.Fprintf(w, "# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting%s 0\n", lbl)
		fmt.Fprintf(w, "# TYPE vllm:kv_cache_usage_perc gauge\nvllm:kv_cache_usage_perc%s %g\n", lbl, min(running/100, 1))
		fmt.Fprintf(w, "# TYPE vllm:prefix_cache_queries counter\nvllm:prefix_cache_queries_total%s %g\n", lbl, q)
		fmt.Fprintf(w, "# TYPE vllm:prefix_cache_hits counter\nvllm:prefix_cache_hits_total%s %g\n", lbl, h)
		fmt.Fprintf(w, "# TYPE vllm:num_preemptions counter\nvllm:num_preemptions_total%s 0\n", lbl)
	}
}
