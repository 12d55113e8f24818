package sim

import (
	"encoding/json"
	"fmt"
)

// Tool calls, as vLLM serves them: a chat request may offer tools
// (OpenAI's function schema) and a tool_choice. With "none" the model
// answers in text; otherwise the simulated model calls one tool, the one
// tool_choice names or else the first, with arguments generated from the
// tool's parameters schema as a structured answer is. It streams the call
// in vLLM's delta shape: after the role chunk, a chunk with the call's
// index, id, type and function.name, then each step's tokens as a piece
// of function.arguments; the last chunk's finish_reason is "tool_calls".
// As in vLLM, "auto" (the default when tools are given) needs the server
// started with --enable-auto-tool-choice.

// toolParam is one tool of a request.
type toolParam struct {
	Type     string `json:"type"`
	Function struct {
		Name       string          `json:"name"`
		Parameters json.RawMessage `json:"parameters"`
	} `json:"function"`
}

// toolCall is the call a request's answer makes.
type toolCall struct {
	id, name string
}

// pickTool is the tool a request calls and its parameters schema: nil
// when it offers none or tool_choice is "none"; an error for what vLLM
// refuses.
func (g *genRequest) pickTool(autoEnabled bool) (*toolParam, *apiError) {
	bad := func(format string, a ...any) (*toolParam, *apiError) {
		e := badRequest(format, a...)
		return nil, &e
	}
	choice := "auto"
	var named string
	if c := g.ToolChoice; len(c) > 0 && string(c) != "null" {
		if json.Unmarshal(c, &choice) != nil {
			var f struct {
				Type     string `json:"type"`
				Function struct {
					Name string `json:"name"`
				} `json:"function"`
			}
			if err := json.Unmarshal(c, &f); err != nil || f.Type != "function" || f.Function.Name == "" {
				return bad("tool_choice must be \"none\", \"auto\", \"required\" or a named function")
			}
			choice, named = "named", f.Function.Name
		}
	} else if len(g.Tools) == 0 {
		return nil, nil
	}
	switch choice {
	case "none":
		return nil, nil
	case "auto", "required", "named":
	default:
		return bad("tool_choice %q is not one of none, auto, required", choice)
	}
	if len(g.Tools) == 0 {
		return bad("When using `tool_choice`, `tools` must be set.")
	}
	if choice == "auto" && !autoEnabled {
		return bad(`"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set`)
	}
	for i := range g.Tools {
		t := &g.Tools[i]
		if t.Type != "function" || t.Function.Name == "" {
			return bad("tools[%d] must be a function tool with a name", i)
		}
		if named == "" || t.Function.Name == named {
			return t, nil
		}
	}
	return bad("Tool '%s' has not been passed in `tools`.", named)
}

// toolSchema is a tool's parameters schema, parsed (an empty object's
// when it has none).
func (t *toolParam) toolSchema() (any, error) {
	if len(t.Parameters()) == 0 {
		return map[string]any{"type": "object"}, nil
	}
	var v any
	if err := json.Unmarshal(t.Parameters(), &v); err != nil {
		return nil, fmt.Errorf("tool %s: parameters are not JSON: %v", t.Function.Name, err)
	}
	return v, nil
}

// Parameters is the tool's parameters schema, raw; nil for none.
func (t *toolParam) Parameters() json.RawMessage {
	if p := t.Function.Parameters; len(p) > 0 && string(p) != "null" {
		return p
	}
	return nil
}

// appendToolHead writes the delta of a call's first chunk: its index, id,
// type and function name.
func (s *Server) appendToolHead(b []byte, tc *toolCall) []byte {
	b = append(b, `"tool_calls":[{"id":`...)
	b = appendJSONString(b, tc.id)
	b = append(b, `,"type":"function","index":0,"function":{"name":`...)
	b = appendJSONString(b, tc.name)
	return append(b, `}}]`...)
}

// appendToolArgs writes the delta of a piece of a call's arguments.
func (s *Server) appendToolArgs(b []byte, toks []int) []byte {
	b = append(b, `"tool_calls":[{"index":0,"function":{"arguments":`...)
	b = s.appendPieces(b, toks)
	return append(b, `}}]`...)
}

// toolFinish is the finish_reason of an answer that made a tool call: a
// call that ended by itself ends with "tool_calls", as vLLM's does.
func toolFinish(reason string) string {
	if reason == "stop" {
		return "tool_calls"
	}
	return reason
}
