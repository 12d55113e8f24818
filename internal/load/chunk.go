package load

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// chunk is what the client needs from one streamed completion chunk.
type chunk struct {
	// choices is true when the chunk's choices array is non-empty.
	choices bool
	// text is the first choice's text (completions) or delta.content (chat),
	// still JSON-escaped when escaped is true; nil when absent.
	text    []byte
	escaped bool
	// output is true when the first choice carries generated output:
	// non-empty text or content, reasoning content, or tool-call arguments.
	// A role chunk or an empty-content chunk has choices but no output.
	output bool
	// reasoning is true when the first choice carries non-empty reasoning
	// (delta.reasoning_content, or delta.reasoning as newer vLLM names
	// it); answer when it carries non-empty text or content, or tool-call
	// arguments: the output a user reads. A chunk may carry both.
	reasoning, answer bool
	// finished is true when the first choice has a finish_reason (the
	// answer ended: a stop sequence, max_tokens, an EOS), and finishReason
	// is it ("stop", "length"), pointing into the chunk's bytes.
	finished     bool
	finishReason []byte
	// usage is true when the chunk carries a usage object.
	usage            bool
	promptTokens     int
	completionTokens int
	// reasoningTokens is usage.completion_tokens_details.reasoning_tokens,
	// when hasReasoningTokens says the usage reported it.
	reasoningTokens    int
	hasReasoningTokens bool
	// errMsg is a top-level "error" value, raw JSON; nil when absent.
	errMsg []byte
	// toolCalls are the first choice's delta.tool_calls, nil when none.
	toolCalls []toolDelta
}

var errSyntax = errors.New("unexpected JSON")

// parseChunk fills c from one chunk's JSON with a scanner that allocates
// nothing: it walks the top-level object, looks into "choices", "usage" and
// "error", and skips everything else. Anything it does not expect is left
// to parseChunkSlow, which uses encoding/json.
func parseChunk(b []byte, c *chunk) error {
	*c = chunk{}
	if err := parseChunkFast(b, c); err != nil {
		*c = chunk{}
		return parseChunkSlow(b, c)
	}
	return nil
}

func parseChunkFast(b []byte, c *chunk) error {
	i := ws(b, 0)
	if i >= len(b) || b[i] != '{' {
		return errSyntax
	}
	flat := false // vLLM before 0.10.1: {"object":"error","message":...}
	var seen keySet
	end, err := eachKey(b, i, func(key []byte, v int) (int, error) {
		if !seen.add(key, "choices", "usage", "error", "object") {
			return 0, errSyntax
		}
		switch string(key) {
		case "choices":
			return parseChoices(b, v, c)
		case "usage":
			return parseUsage(b, v, c)
		case "error":
			end, err := skipValue(b, v)
			if err == nil && string(b[v:end]) != "null" {
				c.errMsg = b[v:end]
			}
			return end, err
		case "object":
			if v < len(b) && b[v] != '"' {
				return nullValue(b, v) // encoding/json wants a string here
			}
			end, err := skipValue(b, v)
			flat = err == nil && string(b[v:end]) == `"error"`
			return end, err
		}
		return skipValue(b, v)
	})
	if err != nil {
		return err
	}
	if ws(b, end) != len(b) {
		return errSyntax
	}
	if flat && c.errMsg == nil {
		c.errMsg = b
	}
	return nil
}

func parseChoices(b []byte, i int, c *chunk) (int, error) {
	if i < len(b) && b[i] == 'n' {
		return skipValue(b, i) // null
	}
	if i >= len(b) || b[i] != '[' {
		return 0, errSyntax
	}
	j := ws(b, i+1)
	if j < len(b) && b[j] == ']' {
		return j + 1, nil
	}
	c.choices = true
	if j >= len(b) || b[j] != '{' {
		return 0, errSyntax
	}
	// the first choice: find text or delta.content
	end, err := parseChoice(b, j, c)
	if err != nil {
		return 0, err
	}
	// further choices: not read, but checked as encoding/json would read them
	for {
		end = ws(b, end)
		if end >= len(b) {
			return 0, errSyntax
		}
		switch b[end] {
		case ']':
			return end + 1, nil
		case ',':
			next := ws(b, end+1)
			if next < len(b) && b[next] == '{' {
				var scratch chunk
				end, err = parseChoice(b, next, &scratch)
			} else {
				end, err = nullValue(b, next)
			}
			if err != nil {
				return 0, err
			}
		default:
			return 0, errSyntax
		}
	}
}

// parseChoice reads the choice object at b[i] into c: its text, else its
// delta.content, as encoding/json would pick them.
func parseChoice(b []byte, i int, c *chunk) (int, error) {
	var text, content chunk
	reasoning, finished := false, false
	var reason []byte
	var seen keySet
	end, err := eachKey(b, i, func(key []byte, v int) (int, error) {
		if !seen.add(key, "text", "delta", "finish_reason") {
			return 0, errSyntax
		}
		switch string(key) {
		case "text":
			return stringValue(b, v, &text)
		case "finish_reason":
			if v < len(b) && b[v] == '"' { // a string says the answer ended; anything else does not
				end, esc, err := skipString(b, v)
				if err == nil && esc {
					return 0, errSyntax // an escaped reason: let encoding/json decode it
				}
				finished, reason = err == nil, b[v+1:max(end-1, v+1)]
				return end, err
			}
			return skipValue(b, v)
		case "delta":
			if v < len(b) && b[v] == '{' {
				var seen keySet
				return eachKey(b, v, func(key []byte, v int) (int, error) {
					if !seen.add(key, "content", "reasoning_content", "reasoning", "tool_calls") {
						return 0, errSyntax
					}
					switch string(key) {
					case "content":
						return stringValue(b, v, &content)
					case "reasoning_content", "reasoning":
						// reasoning is generated output: non-empty text counts
						if v < len(b) && b[v] != '"' && b[v] != 'n' {
							return 0, errSyntax // not a string: let encoding/json decide
						}
						end, err := skipValue(b, v)
						if err == nil && b[v] == '"' && end-v > 2 {
							reasoning = true
						}
						return end, err
					case "tool_calls":
						end, err := skipValue(b, v)
						if err == nil && b[v] != 'n' && string(b[v:end]) != "[]" {
							return 0, errSyntax // rare: let encoding/json find the arguments
						}
						return end, err
					}
					return skipValue(b, v)
				})
			}
			return nullValue(b, v) // anything else but an object fails encoding/json
		}
		return skipValue(b, v)
	})
	if err != nil {
		return 0, err
	}
	switch {
	case text.text != nil:
		c.text, c.escaped = text.text, text.escaped
	case content.text != nil:
		c.text, c.escaped = content.text, content.escaped
	}
	c.answer = len(c.text) > 0
	c.reasoning = reasoning
	c.output = c.answer || reasoning
	c.finished, c.finishReason = finished, reason
	return end, nil
}

// nullValue accepts only null at b[i].
func nullValue(b []byte, i int) (int, error) {
	if i+4 <= len(b) && string(b[i:i+4]) == "null" {
		return i + 4, nil
	}
	return 0, errSyntax
}

func stringValue(b []byte, i int, c *chunk) (int, error) {
	if i < len(b) && b[i] == 'n' {
		return skipValue(b, i) // null
	}
	if i >= len(b) || b[i] != '"' {
		return 0, errSyntax // not a string: let encoding/json decide
	}
	end, esc, err := skipString(b, i)
	if err != nil {
		return 0, err
	}
	if !utf8.Valid(b[i+1 : end-1]) {
		return 0, errSyntax // encoding/json would replace the bad bytes
	}
	c.text, c.escaped = b[i+1:end-1], esc
	return end, nil
}

func parseUsage(b []byte, i int, c *chunk) (int, error) {
	if i < len(b) && b[i] == 'n' {
		return skipValue(b, i) // null
	}
	if i >= len(b) || b[i] != '{' {
		return 0, errSyntax
	}
	c.usage = true
	var seen keySet
	return eachKey(b, i, func(key []byte, v int) (int, error) {
		if !seen.add(key, "prompt_tokens", "completion_tokens", "completion_tokens_details") {
			return 0, errSyntax
		}
		switch string(key) {
		case "prompt_tokens":
			return intValue(b, v, &c.promptTokens)
		case "completion_tokens":
			return intValue(b, v, &c.completionTokens)
		case "completion_tokens_details":
			return parseCompletionDetails(b, v, c)
		}
		return skipValue(b, v)
	})
}

// parseCompletionDetails reads usage.completion_tokens_details: the
// reasoning tokens of the answer, as OpenAI's API reports them.
func parseCompletionDetails(b []byte, i int, c *chunk) (int, error) {
	if i < len(b) && b[i] == 'n' {
		return skipValue(b, i) // null
	}
	if i >= len(b) || b[i] != '{' {
		return 0, errSyntax
	}
	var seen keySet
	return eachKey(b, i, func(key []byte, v int) (int, error) {
		if !seen.add(key, "reasoning_tokens") {
			return 0, errSyntax
		}
		if string(key) == "reasoning_tokens" {
			if v < len(b) && b[v] == 'n' {
				return skipValue(b, v) // null: not reported
			}
			c.hasReasoningTokens = true
			return intValue(b, v, &c.reasoningTokens)
		}
		return skipValue(b, v)
	})
}

func intValue(b []byte, i int, dst *int) (int, error) {
	if i < len(b) && b[i] == 'n' {
		return skipValue(b, i)
	}
	n, j := 0, i
	for j < len(b) && b[j] >= '0' && b[j] <= '9' {
		n = n*10 + int(b[j]-'0')
		j++
	}
	if j == i || j-i > 15 || (b[i] == '0' && j-i > 1) {
		return 0, errSyntax
	}
	*dst = n
	return j, nil
}

// keySet remembers which of an object's wanted keys were seen, so that the
// scanner leaves to encoding/json what it would read differently: a wanted
// key given twice (encoding/json keeps the last), or spelled in another
// case (encoding/json matches keys case-insensitively, "Usage" and
// "uſage" included).
type keySet uint8

// add records key; false means the scanner must give up on this chunk.
func (s *keySet) add(key []byte, wanted ...string) bool {
	for i, w := range wanted {
		if string(key) == w {
			bit := keySet(1) << i
			if *s&bit != 0 {
				return false
			}
			*s |= bit
			return true
		}
	}
	// An ASCII key folds to a wanted one only at the same length; only
	// non-ASCII keys (with "ſ" or the Kelvin sign) need the full check.
	ascii := true
	for _, ch := range key {
		if ch >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	for _, w := range wanted {
		if (!ascii || len(key) == len(w)) && bytes.EqualFold(key, []byte(w)) {
			return false
		}
	}
	return true
}

// eachKey walks the object starting at b[i] == '{', calling fn with each key
// (raw, without quotes) and the index of its value; fn returns the index
// just past the value. It returns the index just past the closing brace.
func eachKey(b []byte, i int, fn func(key []byte, v int) (int, error)) (int, error) {
	i = ws(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return 0, errSyntax
		}
		end, esc, err := skipString(b, i)
		if err != nil || esc {
			return 0, errSyntax // escaped keys: let encoding/json decide
		}
		key := b[i+1 : end-1]
		i = ws(b, end)
		if i >= len(b) || b[i] != ':' {
			return 0, errSyntax
		}
		v := ws(b, i+1)
		if i, err = fn(key, v); err != nil {
			return 0, err
		}
		i = ws(b, i)
		if i >= len(b) {
			return 0, errSyntax
		}
		switch b[i] {
		case ',':
			i = ws(b, i+1)
		case '}':
			return i + 1, nil
		default:
			return 0, errSyntax
		}
	}
}

// skipValue returns the index just past the JSON value starting at b[i].
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errSyntax
	}
	switch b[i] {
	case '"':
		end, _, err := skipString(b, i)
		return end, err
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, _, err := skipString(b, j)
				if err != nil {
					return 0, err
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					// skipped, but it must be JSON all the same
					if !json.Valid(b[i : j+1]) {
						return 0, errSyntax
					}
					return j + 1, nil
				}
			}
		}
		return 0, errSyntax
	default:
		j := i
		for j < len(b) {
			switch b[j] {
			case ',', '}', ']', ' ', '\t', '\r', '\n':
				goto done
			}
			j++
		}
	done:
		if !validScalar(b[i:j]) {
			return 0, errSyntax
		}
		return j, nil
	}
}

// skipString returns the index just past the string starting at b[i] == '"'
// and whether it holds escapes. It jumps from quote to quote with
// bytes.IndexByte; a quote after an odd run of backslashes is escaped.
func skipString(b []byte, i int) (int, bool, error) {
	esc := false
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return 0, false, errSyntax
		}
		q := j + k
		for _, ch := range b[j:q] {
			if ch < 0x20 {
				return 0, false, errSyntax // a raw control character: not JSON
			}
			if ch == '\\' {
				esc = true
			}
		}
		if esc {
			n := 0
			for p := q - 1; p > i && b[p] == '\\'; p-- {
				n++
			}
			if n%2 == 1 { // an escaped quote: keep looking
				j = q + 1
				continue
			}
			if !validEscapes(b[i+1 : q]) {
				return 0, false, errSyntax
			}
		}
		return q + 1, esc, nil
	}
}

// validEscapes reports whether every backslash in s starts a JSON escape.
func validEscapes(s []byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			continue
		}
		if i+1 >= len(s) {
			return false
		}
		switch s[i+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i++
		case 'u':
			if i+6 > len(s) {
				return false
			}
			for _, h := range s[i+2 : i+6] {
				if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
					return false
				}
			}
			i += 5
		default:
			return false
		}
	}
	return true
}

// validScalar reports whether s is a JSON literal or number.
func validScalar(s []byte) bool {
	switch string(s) {
	case "true", "false", "null":
		return true
	}
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i, n = i+1, n+1
		}
		return n
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

func ws(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// slowChunk mirrors the fields of a chunk for encoding/json.
type slowChunk struct {
	Choices []struct {
		Text         *string         `json:"text"`
		FinishReason json.RawMessage `json:"finish_reason"`
		Delta        *struct {
			Content          *string `json:"content"`
			ReasoningContent *string `json:"reasoning_content"`
			Reasoning        *string `json:"reasoning"`
			ToolCalls        []struct {
				Index    *int `json:"index"`
				Function *struct {
					Name      *string `json:"name"`
					Arguments *string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens            int `json:"prompt_tokens"`
		CompletionTokens        int `json:"completion_tokens"`
		CompletionTokensDetails *struct {
			ReasoningTokens *int `json:"reasoning_tokens"`
		} `json:"completion_tokens_details"`
	} `json:"usage"`
	Error  json.RawMessage `json:"error"`
	Object string          `json:"object"`
}

func parseChunkSlow(b []byte, c *chunk) error {
	var s slowChunk
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("malformed chunk %q: %w", excerpt(b, 120), err)
	}
	if len(s.Choices) > 0 {
		c.choices = true
		ch := s.Choices[0]
		switch {
		case ch.Text != nil:
			c.text = []byte(*ch.Text)
		case ch.Delta != nil && ch.Delta.Content != nil:
			c.text = []byte(*ch.Delta.Content)
		}
		c.answer = len(c.text) > 0
		c.finished = len(ch.FinishReason) > 0 && ch.FinishReason[0] == '"'
		var reason string
		if c.finished && json.Unmarshal(ch.FinishReason, &reason) == nil {
			c.finishReason = []byte(reason)
		}
		if d := ch.Delta; d != nil {
			if (d.ReasoningContent != nil && *d.ReasoningContent != "") || (d.Reasoning != nil && *d.Reasoning != "") {
				c.reasoning = true
			}
			for i, tc := range d.ToolCalls {
				if tc.Function != nil && tc.Function.Arguments != nil && *tc.Function.Arguments != "" {
					c.answer = true
				}
				// a call without an index is the chunk's i-th
				td := toolDelta{index: i}
				if tc.Index != nil {
					td.index = *tc.Index
				}
				if f := tc.Function; f != nil {
					if f.Name != nil {
						td.name = *f.Name
					}
					if f.Arguments != nil {
						td.args, td.hasArgs = *f.Arguments, true
					}
				}
				c.toolCalls = append(c.toolCalls, td)
			}
		}
		c.output = c.answer || c.reasoning
	}
	if u := s.Usage; u != nil {
		c.usage = true
		c.promptTokens, c.completionTokens = u.PromptTokens, u.CompletionTokens
		if d := u.CompletionTokensDetails; d != nil && d.ReasoningTokens != nil {
			c.reasoningTokens, c.hasReasoningTokens = *d.ReasoningTokens, true
		}
	}
	if len(s.Error) > 0 && string(s.Error) != "null" {
		c.errMsg = s.Error
	} else if s.Object == "error" {
		c.errMsg = b
	}
	return nil
}

// appendText appends the chunk's text, unescaped, to dst.
func (c *chunk) appendText(dst []byte) []byte {
	if !c.escaped {
		return append(dst, c.text...)
	}
	var s string
	quoted := make([]byte, 0, len(c.text)+2)
	quoted = append(append(append(quoted, '"'), c.text...), '"')
	if err := json.Unmarshal(quoted, &s); err != nil {
		return append(dst, c.text...)
	}
	return append(dst, s...)
}

// excerpt shortens b for an error message.
func excerpt(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}
