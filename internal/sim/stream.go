package sim

import (
	"net/http"
	"strconv"
	"unicode/utf8"
)

// stream answers j as Server-Sent Events in vLLM's chunk format: one chunk
// per request per engine step (several tokens when the client fell behind),
// the chat role chunk first, a usage chunk when asked, then [DONE]. Chunks
// are built by hand into one reused buffer: this is the simulator's hot path.
func (s *Server) stream(w http.ResponseWriter, hr *http.Request, j *job) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	rc.Flush()

	object := `"text_completion"`
	if j.chat {
		object = `"chat.completion.chunk"`
	}
	// head is everything before "choices".
	head := make([]byte, 0, 160)
	head = append(head, `data: {"id":"`...)
	head = append(head, j.id...)
	head = append(head, `","object":`...)
	head = append(head, object...)
	head = append(head, `,"created":`...)
	head = strconv.AppendInt(head, j.created, 10)
	head = append(head, `,"model":`...)
	head = appendJSONString(head, s.cfg.served)
	head = append(head, `,"choices":[`...)

	buf := make([]byte, 0, 1024)
	sent := make([]int, len(j.reqs)) // output tokens sent per request
	ended := make([]bool, len(j.reqs))
	roleSent := make([]bool, len(j.reqs))
	left := len(j.reqs)
	for left > 0 {
		select {
		case <-j.notify:
		case <-hr.Context().Done():
			j.cancel()
			return
		}
		buf = buf[:0]
		for i, r := range j.reqs {
			if ended[i] {
				continue
			}
			toks, done, reason, err := r.snapshot()
			if err != nil {
				buf = append(buf, "data: "...)
				e := marshal(newAPIError(http.StatusInternalServerError, "InternalServerError", err.Error()))
				buf = append(buf, e...)
				buf = append(buf, "\n\n"...)
				ended[i] = true
				left--
				continue
			}
			out := toks[r.promptLen:]
			if !done {
				out = s.holdBack(out, sent[i])
			}
			if len(out) == sent[i] && !done {
				continue
			}
			if j.chat && !roleSent[i] {
				roleSent[i] = true
				buf = append(buf, head...)
				buf = appendIndex(buf, i)
				buf = append(buf, `"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]`...)
				if j.continuous {
					buf = appendUsage(buf, r.promptLen, 0, false)
				}
				buf = append(buf, ",\"prompt_token_ids\":null}\n\n"...)
			}
			if r.tool != nil && sent[i] == 0 && len(out) > 0 {
				// the call's head (index, id, type, name) before its arguments
				buf = append(buf, head...)
				buf = appendIndex(buf, i)
				buf = append(buf, `"delta":{`...)
				buf = s.appendToolHead(buf, r.tool)
				buf = append(buf, `},"logprobs":null,"finish_reason":null}]`...)
				if j.continuous {
					buf = appendUsage(buf, r.promptLen, 0, false)
				}
				buf = append(buf, "}\n\n"...)
			}
			buf = append(buf, head...)
			buf = appendIndex(buf, i)
			if j.chat && r.tool != nil {
				buf = append(buf, `"delta":{`...)
				buf = s.appendToolArgs(buf, out[sent[i]:])
				buf = append(buf, '}')
				reason = toolFinish(reason)
			} else if j.chat {
				buf = append(buf, `"delta":{`...)
				// reasoning first, as vLLM's reasoning parsers split it; the
				// chunk where it ends carries both
				think := min(max(r.reasoning, sent[i]), len(out))
				if think > sent[i] {
					buf = append(buf, `"reasoning_content":`...)
					buf = s.appendPieces(buf, out[sent[i]:think])
				}
				if think < len(out) || think == sent[i] {
					if think > sent[i] {
						buf = append(buf, ',')
					}
					buf = append(buf, `"content":`...)
					buf = s.appendPieces(buf, out[think:])
				}
				buf = append(buf, '}')
			} else {
				buf = append(buf, `"text":`...)
				buf = s.appendPieces(buf, out[sent[i]:])
			}
			buf = append(buf, `,"logprobs":null,"finish_reason":`...)
			if done {
				buf = appendJSONString(buf, reason)
				buf = append(buf, `,"stop_reason":null`...)
			} else {
				buf = append(buf, "null"...)
				if !j.chat {
					buf = append(buf, `,"stop_reason":null`...)
				}
			}
			if !j.chat {
				buf = append(buf, `,"prompt_token_ids":null`...)
			}
			buf = append(buf, `,"token_ids":null}]`...)
			sent[i] = len(out)
			if j.continuous {
				buf = appendUsage(buf, r.promptLen, len(out), !j.chat)
			} else if !j.chat {
				buf = append(buf, `,"usage":null`...)
			}
			buf = append(buf, "}\n\n"...)
			if done {
				ended[i] = true
				left--
			}
		}
		if len(buf) > 0 {
			if _, err := w.Write(buf); err != nil {
				j.cancel()
				return
			}
			rc.Flush()
		}
	}
	buf = buf[:0]
	if j.usage {
		prompt, completion := 0, 0
		for i, r := range j.reqs {
			prompt += r.promptLen
			completion += sent[i]
		}
		buf = append(buf, head[:len(head)-len(`[`)]...)
		buf = append(buf, `[]`...)
		buf = appendUsage(buf, prompt, completion, false)
		buf = append(buf, "}\n\n"...)
	}
	buf = append(buf, "data: [DONE]\n\n"...)
	w.Write(buf)
	rc.Flush()
}

// appendPieces writes the text of toks as a JSON string.
func (s *Server) appendPieces(b []byte, toks []int) []byte {
	b = append(b, '"')
	for _, t := range toks {
		b = appendEscaped(b, s.tok.pieces[t])
	}
	return append(b, '"')
}

// holdBack drops trailing byte tokens that end in the middle of a UTF-8
// character, so that no chunk carries half a character (vLLM's incremental
// detokenizer waits for the rest the same way).
func (s *Server) holdBack(out []int, sent int) []int {
	end := len(out)
	if end == sent || out[end-1] < 0x80 || out[end-1] > 0xff {
		return out
	}
	// Collect up to 4 trailing byte tokens.
	var tail [4]byte
	n := 0
	for j := end - 1; j >= sent && n < 4 && out[j] >= 0x80 && out[j] <= 0xff; j-- {
		n++
		tail[4-n] = byte(out[j])
	}
	for n > 0 {
		b := tail[4-n:]
		if r, size := utf8.DecodeRune(b); !(r == utf8.RuneError && size <= 1) && size == len(b) {
			return out[:end] // ends on a whole character
		}
		if !utf8.FullRune(b) {
			return out[:end-n] // an unfinished character: hold it back
		}
		n-- // the leading byte belongs to an earlier character; look at fewer
	}
	return out[:end]
}

func appendIndex(b []byte, i int) []byte {
	b = append(b, `{"index":`...)
	b = strconv.AppendInt(b, int64(i), 10)
	return append(b, ',')
}

// appendUsage writes `,"usage":{...}`; details adds "prompt_tokens_details":null
// (completions chunks are dumped with nulls, chat chunks without).
func appendUsage(b []byte, prompt, completion int, details bool) []byte {
	b = append(b, `,"usage":{"prompt_tokens":`...)
	b = strconv.AppendInt(b, int64(prompt), 10)
	b = append(b, `,"total_tokens":`...)
	b = strconv.AppendInt(b, int64(prompt+completion), 10)
	b = append(b, `,"completion_tokens":`...)
	b = strconv.AppendInt(b, int64(completion), 10)
	if details {
		b = append(b, `,"prompt_tokens_details":null`...)
	}
	return append(b, '}')
}

func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	b = appendEscaped(b, s)
	return append(b, '"')
}

const hexDigits = "0123456789abcdef"

// appendEscaped JSON-escapes s (without quotes). Invalid UTF-8 passes
// through; byte tokens are joined back before they reach a client.
func appendEscaped(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c == '\t':
			b = append(b, '\\', 't')
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		default:
			b = append(b, c)
		}
	}
	return b
}
