package sim

import (
	"fmt"
	"net/http"
	"time"
)

// job is one HTTP generation request: one engine request per prompt.
type job struct {
	id         string
	chat       bool
	created    int64
	reqs       []*request
	notify     chan struct{}
	stream     bool
	usage      bool // stream_options.include_usage
	continuous bool // stream_options.continuous_usage_stats
}

func (s *Server) handleCompletions(w http.ResponseWriter, r *http.Request) {
	var req genRequest
	if !s.readRequest(w, r, &req, &req.Model) {
		return
	}
	addSpecial := req.AddSpecialTokens == nil || *req.AddSpecialTokens
	prompts, e := s.prompts(req.Prompt, addSpecial)
	if e != nil {
		writeError(w, *e)
		return
	}
	maxTokens := 16 // vLLM's CompletionRequest default
	if req.MaxTokens != nil {
		maxTokens = *req.MaxTokens
	}
	// the default counts in the context check as a given max_tokens does:
	// vLLM refuses a 1020-token prompt in a context of 1024 without one
	s.generate(w, r, &req, prompts, maxTokens, true, false)
}

func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	var req genRequest
	if !s.readRequest(w, r, &req, &req.Model) {
		return
	}
	if len(req.Messages) == 0 {
		writeError(w, badRequest("messages must be a non-empty list"))
		return
	}
	msgs, e := chatMessages(req.Messages)
	if e != nil {
		writeError(w, *e)
		return
	}
	prompt := s.tok.chatTokens(msgs)
	maxTokens, explicit := -1, false
	if req.MaxCompletionTokens != nil {
		maxTokens, explicit = *req.MaxCompletionTokens, true
	} else if req.MaxTokens != nil {
		maxTokens, explicit = *req.MaxTokens, true
	}
	s.generate(w, r, &req, [][]int{prompt}, maxTokens, explicit, true)
}

// generate validates, submits one engine request per prompt, and answers,
// streaming or not. maxTokens < 0 means "up to max-model-len"; explicit
// says it is a limit the context check counts (a chat request's absent
// one is not).
func (s *Server) generate(w http.ResponseWriter, hr *http.Request, req *genRequest, prompts [][]int, maxTokens int, explicit, chat bool) {
	if req.N != nil && *req.N != 1 {
		writeError(w, badRequest("the simulator supports only n=1"))
		return
	}
	if req.StreamOptions != nil && !req.Stream {
		writeError(w, badRequest("Stream options can only be defined when `stream=True`."))
		return
	}
	if explicit && maxTokens < 1 {
		writeError(w, badRequest("max_tokens must be at least 1, got %d.", maxTokens))
		return
	}
	if req.MinTokens < 0 || (maxTokens > 0 && req.MinTokens > maxTokens) {
		writeError(w, badRequest("min_tokens must be in [0, max_tokens], got %d.", req.MinTokens))
		return
	}
	schema, structured, e := req.schema()
	if e != nil {
		writeError(w, *e)
		return
	}
	var tool *toolParam
	if chat {
		if tool, e = req.pickTool(s.cfg.EnableAutoToolChoice); e != nil {
			writeError(w, *e)
			return
		}
		if tool != nil { // the answer is the call's arguments, generated from its parameters
			var err error
			if schema, err = tool.toolSchema(); err != nil {
				writeError(w, badRequest("%v", err))
				return
			}
			structured = true
		}
	}
	maxLen := s.cfg.MaxModelLen
	for _, p := range prompts {
		if len(p) == 0 {
			writeError(w, badRequest("Either prompt or prompt_embeds must be provided and non-empty."))
			return
		}
		if err := s.tok.checkIDs(p); err != nil {
			writeError(w, badRequest("%v", err))
			return
		}
		if len(p) >= maxLen {
			writeError(w, badRequest("This model's maximum context length is %d tokens. However, your request has %d input tokens. Please reduce the length of the input messages.", maxLen, len(p)))
			return
		}
		if explicit && len(p)+maxTokens > maxLen {
			writeError(w, badRequest("'max_tokens' or 'max_completion_tokens' is too large: %d. This model's maximum context length is %d tokens and your request has %d input tokens (%d > %d - %d).", maxTokens, maxLen, len(p), maxTokens, maxLen, len(p)))
			return
		}
	}
	seq := s.reqSeq.Add(1)
	if s.cfg.FailRate > 0 && float64(mix64(uint64(s.cfg.Seed)^seq*0x9e3779b97f4a7c15)>>11)/float64(1<<53) < s.cfg.FailRate {
		writeError(w, newAPIError(http.StatusInternalServerError, "InternalServerError", "simulated failure (--fail-rate)"))
		return
	}
	now := time.Now()
	j := &job{chat: chat, created: now.Unix(), stream: req.Stream, notify: make(chan struct{}, 1)}
	j.id = s.requestID(chat, seq)
	if req.StreamOptions != nil {
		j.usage = req.StreamOptions.IncludeUsage == nil || *req.StreamOptions.IncludeUsage
		j.continuous = j.usage && req.StreamOptions.ContinuousUsageStats
	}
	var salt uint64
	if req.CacheSalt != "" {
		salt = blockHash(0, s.tok.Tokenize(req.CacheSalt))
	}
	for _, p := range prompts {
		mt := maxTokens
		if mt < 0 {
			mt = maxLen - len(p)
		}
		r := newRequest(p, mt)
		r.notify = j.notify
		r.arrival = now
		r.minTokens = req.MinTokens
		key := blockHash(uint64(s.cfg.Seed), p)
		if req.Seed != nil {
			key = mix64(key ^ uint64(*req.Seed)*0x9e3779b97f4a7c15)
		}
		r.seedKey = key
		if structured {
			ans, err := structuredAnswer(s.tok, schema, key)
			if err != nil {
				writeError(w, badRequest("structured output: %v", err))
				return
			}
			if len(ans) >= 2 && breakStructured(key, s.cfg.InvalidStructuredRate) {
				ans = ans[:len(ans)/2]
			}
			r.structured = ans
			if tool != nil {
				r.tool = &toolCall{id: fmt.Sprintf("chatcmpl-tool-%016x%016x", mix64(key^0x7f4a7c15), mix64(key^0x94d049bb)), name: tool.Function.Name}
			}
		} else {
			if chat {
				r.reasoning = s.cfg.ReasoningTokens
			}
			if !req.IgnoreEOS {
				r.stopAt = r.reasoning + 1 + int(mix64(key^0x5851f42d4c957f2d)%uint64(2*s.cfg.prof.MeanOutputTokens))
			}
		}
		r.computeHashes(s.cfg.BlockSize, salt)
		j.reqs = append(j.reqs, r)
	}
	for _, r := range j.reqs {
		s.eng.submit(r)
	}
	if j.stream {
		s.stream(w, hr, j)
	} else {
		s.respond(w, hr, j)
	}
}

// requestID makes a vLLM-looking id: "cmpl-" or "chatcmpl-" and 32 hex digits.
func (s *Server) requestID(chat bool, seq uint64) string {
	prefix := "cmpl-"
	if chat {
		prefix = "chatcmpl-"
	}
	a := mix64(seq ^ uint64(s.created)<<20)
	b := mix64(a ^ seq)
	return fmt.Sprintf("%s%016x%016x", prefix, a, b)
}

// cancel tells the engine the client went away.
func (j *job) cancel() {
	for _, r := range j.reqs {
		r.cancelled.Store(true)
	}
}

// wait blocks until all of j's requests are done or the client leaves.
func (j *job) wait(hr *http.Request) bool {
	for {
		all := true
		for _, r := range j.reqs {
			if _, done, _, _ := r.snapshot(); !done {
				all = false
				break
			}
		}
		if all {
			return true
		}
		select {
		case <-j.notify:
		case <-hr.Context().Done():
			j.cancel()
			return false
		}
	}
}

func (s *Server) respond(w http.ResponseWriter, hr *http.Request, j *job) {
	if !j.wait(hr) {
		return
	}
	usage := usageInfo{}
	var choicesC []completionChoice
	var choicesChat []chatChoice
	for i, r := range j.reqs {
		toks, _, reason, err := r.snapshot()
		if err != nil {
			writeError(w, newAPIError(http.StatusInternalServerError, "InternalServerError", err.Error()))
			return
		}
		out := toks[r.promptLen:]
		think := min(r.reasoning, len(out))
		text, _ := s.tok.Detokenize(out[think:])
		usage.PromptTokens += r.promptLen
		usage.CompletionTokens += len(out)
		if j.chat {
			msg := chatMessageOut{Role: "assistant", Content: text, ToolCalls: []any{}}
			if r.tool != nil {
				msg.Content = ""
				msg.ToolCalls = []any{map[string]any{"id": r.tool.id, "type": "function", "function": map[string]any{"name": r.tool.name, "arguments": text}}}
				reason = toolFinish(reason)
			}
			if think > 0 {
				thought, _ := s.tok.Detokenize(out[:think])
				var v any = thought
				msg.ReasoningContent = &v
			}
			choicesChat = append(choicesChat, chatChoice{Index: i, Message: msg, FinishReason: reason})
		} else {
			choicesC = append(choicesC, completionChoice{Index: i, Text: text, FinishReason: reason})
		}
	}
	usage.TotalTokens = usage.PromptTokens + usage.CompletionTokens
	if j.chat {
		writeJSON(w, http.StatusOK, chatResponse{ID: j.id, Object: "chat.completion", Created: j.created, Model: s.cfg.served, Choices: choicesChat, Usage: usage})
	} else {
		writeJSON(w, http.StatusOK, completionResponse{ID: j.id, Object: "text_completion", Created: j.created, Model: s.cfg.served, Choices: choicesC, Usage: usage})
	}
}

func (s *Server) handleModels(w http.ResponseWriter, r *http.Request) {
	perm := modelPermission{ID: "modelperm-" + s.requestID(false, 0)[5:], Object: "model_permission", Created: s.created,
		AllowSampling: true, AllowLogprobs: true, AllowView: true, Organization: "*"}
	writeJSON(w, http.StatusOK, modelList{Object: "list", Data: []modelCard{{
		ID: s.cfg.served, Object: "model", Created: s.created, OwnedBy: "vllm", Root: s.cfg.Model,
		MaxModelLen: s.cfg.MaxModelLen, Permission: []modelPermission{perm}}}})
}

func (s *Server) handleTokenize(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model            string       `json:"model"`
		Prompt           *string      `json:"prompt"`
		Messages         []rawMessage `json:"messages"`
		AddSpecialTokens *bool        `json:"add_special_tokens"`
		ReturnTokenStrs  bool         `json:"return_token_strs"`
	}
	if !s.readRequest(w, r, &req, &req.Model) {
		return
	}
	var ids []int
	switch {
	case req.Prompt != nil:
		ids = s.tok.Tokenize(*req.Prompt)
		if req.AddSpecialTokens == nil || *req.AddSpecialTokens {
			ids = append([]int{tokBOS}, ids...)
		}
	case req.Messages != nil:
		msgs, e := chatMessages(req.Messages)
		if e != nil {
			writeError(w, *e)
			return
		}
		ids = s.tok.chatTokens(msgs)
	default:
		writeError(w, badRequest("either prompt or messages must be given"))
		return
	}
	resp := tokenizeResponse{Count: len(ids), MaxModelLen: s.cfg.MaxModelLen, Tokens: ids}
	if req.ReturnTokenStrs {
		strs := make([]string, len(ids))
		for i, id := range ids {
			strs[i] = s.tok.Piece(id)
		}
		resp.TokenStrs = &strs
	}
	writeJSON(w, http.StatusOK, resp)
}

func (s *Server) handleDetokenize(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model  string `json:"model"`
		Tokens []int  `json:"tokens"`
	}
	if !s.readRequest(w, r, &req, &req.Model) {
		return
	}
	text, err := s.tok.Detokenize(req.Tokens)
	if err != nil {
		writeError(w, badRequest("%v", err))
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"prompt": text})
}
