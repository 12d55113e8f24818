package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// genRequest is the union of the completion and chat request fields the
// simulator reads. Unknown fields are ignored, as vLLM does.
type genRequest struct {
	Model               string           `json:"model"`
	Prompt              json.RawMessage  `json:"prompt"`
	Messages            []rawMessage     `json:"messages"`
	MaxTokens           *int             `json:"max_tokens"`
	MaxCompletionTokens *int             `json:"max_completion_tokens"`
	MinTokens           int              `json:"min_tokens"`
	IgnoreEOS           bool             `json:"ignore_eos"`
	Temperature         *float64         `json:"temperature"`
	Seed                *int64           `json:"seed"`
	N                   *int             `json:"n"`
	Stream              bool             `json:"stream"`
	StreamOptions       *streamOptions   `json:"stream_options"`
	ResponseFormat      *responseFormat  `json:"response_format"`
	StructuredOutputs   *structuredParam `json:"structured_outputs"`
	AddSpecialTokens    *bool            `json:"add_special_tokens"`
	CacheSalt           string           `json:"cache_salt"`
	Tools               []toolParam      `json:"tools"`
	ToolChoice          json.RawMessage  `json:"tool_choice"`
}

type rawMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type streamOptions struct {
	IncludeUsage         *bool `json:"include_usage"`
	ContinuousUsageStats bool  `json:"continuous_usage_stats"`
}

type responseFormat struct {
	Type       string `json:"type"`
	JSONSchema *struct {
		Name   string          `json:"name"`
		Schema json.RawMessage `json:"schema"`
	} `json:"json_schema"`
}

type structuredParam struct {
	JSON json.RawMessage `json:"json"`
}

// flatten turns a message's content (a string or a list of parts) into text.
func (m rawMessage) flatten() (string, error) {
	if len(m.Content) == 0 || string(m.Content) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(m.Content, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(m.Content, &parts); err != nil {
		return "", fmt.Errorf("message content must be a string or a list of parts")
	}
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.Text)
	}
	return b.String(), nil
}

// decodeRequest reads a JSON body into v, answering 400 as vLLM does.
func decodeRequest(r *http.Request, v any) *apiError {
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		e := badRequest("could not read the request body: %v", err)
		return &e
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(v); err != nil {
		e := badRequest("JSON decode error: %v", err)
		return &e
	}
	return nil
}

// checkModel answers 404 for a model the server does not serve.
func (s *Server) checkModel(model string) *apiError {
	if model == "" || model == s.cfg.served {
		return nil
	}
	e := newAPIError(http.StatusNotFound, "NotFoundError", fmt.Sprintf("The model `%s` does not exist.", model))
	return &e
}

// readRequest decodes r's JSON body into v and checks the model it names
// (model points into v); on a problem it answers the error and reports false.
func (s *Server) readRequest(w http.ResponseWriter, r *http.Request, v any, model *string) bool {
	if e := decodeRequest(r, v); e != nil {
		writeError(w, *e)
		return false
	}
	if e := s.checkModel(*model); e != nil {
		writeError(w, *e)
		return false
	}
	return true
}

// chatMessages flattens each message's content to text.
func chatMessages(in []rawMessage) ([]chatMessage, *apiError) {
	msgs := make([]chatMessage, len(in))
	for i, m := range in {
		text, err := m.flatten()
		if err != nil {
			e := badRequest("messages[%d]: %v", i, err)
			return nil, &e
		}
		msgs[i] = chatMessage{role: m.Role, content: text}
	}
	return msgs, nil
}

// prompts parses a completion prompt: a string, a token-id list, or a list
// of either.
func (s *Server) prompts(raw json.RawMessage, addSpecial bool) ([][]int, *apiError) {
	fromText := func(t string) []int {
		ids := s.tok.Tokenize(t)
		if addSpecial {
			ids = append([]int{tokBOS}, ids...)
		}
		return ids
	}
	if len(raw) == 0 || string(raw) == "null" || string(raw) == `""` || string(raw) == "[]" {
		e := badRequest("Either prompt or prompt_embeds must be provided and non-empty.")
		return nil, &e
	}
	var str string
	if json.Unmarshal(raw, &str) == nil {
		return [][]int{fromText(str)}, nil
	}
	var ids []int
	if json.Unmarshal(raw, &ids) == nil {
		return [][]int{ids}, nil
	}
	var strs []string
	if json.Unmarshal(raw, &strs) == nil {
		out := make([][]int, len(strs))
		for i, t := range strs {
			out[i] = fromText(t)
		}
		return out, nil
	}
	var lists [][]int
	if json.Unmarshal(raw, &lists) == nil {
		return lists, nil
	}
	e := badRequest("prompt must be a string, a list of token ids, or a list of either")
	return nil, &e
}

// schema returns the structured-output schema of a request: (nil, false)
// for plain text, (nil, true) for json_object, (schema, true) for a schema,
// from structured_outputs.json or response_format. guided_json is ignored,
// as vLLM has since v0.12.0 removed the guided_* fields (its requests
// accept unknown fields, so the answer is plain text and no error).
func (g *genRequest) schema() (any, bool, *apiError) {
	parse := func(raw json.RawMessage) (any, *apiError) {
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			e := badRequest("invalid JSON schema: %v", err)
			return nil, &e
		}
		if str, ok := v.(string); ok { // a schema sent as a JSON string
			if err := json.Unmarshal([]byte(str), &v); err != nil {
				e := badRequest("invalid JSON schema: %v", err)
				return nil, &e
			}
		}
		return v, nil
	}
	switch {
	case g.StructuredOutputs != nil && len(g.StructuredOutputs.JSON) > 0:
		v, err := parse(g.StructuredOutputs.JSON)
		return v, true, err
	case g.ResponseFormat != nil:
		switch g.ResponseFormat.Type {
		case "", "text":
			return nil, false, nil
		case "json_object":
			return nil, true, nil
		case "json_schema":
			if g.ResponseFormat.JSONSchema == nil || len(g.ResponseFormat.JSONSchema.Schema) == 0 {
				e := badRequest("When response_format type is 'json_schema', the 'json_schema' field must be provided.")
				return nil, true, &e
			}
			v, err := parse(g.ResponseFormat.JSONSchema.Schema)
			return v, true, err
		default:
			e := badRequest("response_format type %q is not supported (use text, json_object or json_schema)", g.ResponseFormat.Type)
			return nil, false, &e
		}
	}
	return nil, false, nil
}
