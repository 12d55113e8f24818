package load

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/llmgate/llmgate/results"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Tool calls. A workload that offers tools sends them, with its
// tool_choice, on every chat request; the server streams its calls in
// delta.tool_calls as vLLM does: a call's first delta has its index, id,
// type and function.name, and the deltas after it pieces of
// function.arguments, a JSON text, under the same index. The client joins
// the pieces by index, times the chunk with the last piece, and judges
// each call when the stream ends: it names an offered tool, and its
// arguments parse as JSON and validate against the tool's parameters
// schema (empty arguments read as {}).

// toolDelta is one tool call's piece in a chunk.
type toolDelta struct {
	index   int
	name    string
	args    string
	hasArgs bool
}

// Bounds of one answer's tool calls: more calls, or more argument text,
// is a broken or hostile server.
const (
	maxToolCalls    = 128
	maxToolArgBytes = 1 << 20
)

// toolCallBuf is one call as its deltas build it.
type toolCallBuf struct {
	name string
	args strings.Builder
}

// toolCalls gathers an answer's tool calls from its chunks.
type toolCalls struct {
	calls    []toolCallBuf
	byIndex  map[int]int // index → calls
	last     time.Time   // the chunk with the last piece of a call
	bytes    int
	overflow string
}

func (tc *toolCalls) reset() {
	tc.calls, tc.byIndex, tc.last, tc.bytes, tc.overflow = tc.calls[:0], nil, time.Time{}, 0, ""
}

// add takes a chunk's tool-call deltas, which arrived at at.
func (tc *toolCalls) add(at time.Time, ds []toolDelta) {
	for _, d := range ds {
		i, ok := tc.byIndex[d.index]
		if !ok {
			if len(tc.calls) == maxToolCalls {
				tc.overflow = fmt.Sprintf("the answer made more than %d tool calls", maxToolCalls)
				return
			}
			if tc.byIndex == nil {
				tc.byIndex = map[int]int{}
			}
			i = len(tc.calls)
			tc.byIndex[d.index] = i
			tc.calls = append(tc.calls, toolCallBuf{})
		}
		c := &tc.calls[i]
		if d.name != "" {
			c.name = d.name
		}
		if d.hasArgs && d.args != "" {
			if tc.bytes += len(d.args); tc.bytes > maxToolArgBytes {
				tc.overflow = fmt.Sprintf("the answer's tool-call arguments passed %d KiB", maxToolArgBytes>>10)
				return
			}
			c.args.WriteString(d.args)
		}
		tc.last = at // a call without arguments is complete with its name
	}
}

// toolSet is the tools a workload offers, encoded once for the request
// body, with each one's compiled parameters schema to judge calls by.
type toolSet struct {
	members []byte                        // `"tools":[...],"tool_choice":...`
	schemas map[string]*jsonschema.Schema // by function name; nil: any arguments object
}

// toolSpec is one tool of OpenAI's function schema.
type toolSpec struct {
	Type     string `json:"type"`
	Function struct {
		Name       string          `json:"name"`
		Parameters json.RawMessage `json:"parameters"`
	} `json:"function"`
}

// newToolSet reads a workload's tools (a JSON array of OpenAI function
// tools) and tool_choice (JSON: "auto", "none", "required" or
// {"type": "function", "function": {"name": ...}}; "" sends none).
func newToolSet(tools, choice string) (*toolSet, error) {
	var specs []toolSpec
	if err := json.Unmarshal([]byte(tools), &specs); err != nil {
		return nil, fmt.Errorf("tools: not a JSON array of tools: %w", err)
	}
	ts := &toolSet{schemas: map[string]*jsonschema.Schema{}}
	for i, sp := range specs {
		if sp.Type != "function" || sp.Function.Name == "" {
			return nil, fmt.Errorf("tools[%d]: want {\"type\": \"function\", \"function\": {\"name\": ...}}", i)
		}
		if _, dup := ts.schemas[sp.Function.Name]; dup {
			return nil, fmt.Errorf("tools[%d]: a second tool named %q", i, sp.Function.Name)
		}
		var sch *jsonschema.Schema
		if p := bytes.TrimSpace(sp.Function.Parameters); len(p) > 0 && string(p) != "null" {
			var err error
			if sch, err = compileSchema("tool.json", p); err != nil {
				return nil, fmt.Errorf("tools[%d] (%s): parameters: %w", i, sp.Function.Name, err)
			}
		}
		ts.schemas[sp.Function.Name] = sch
	}
	var b bytes.Buffer
	b.WriteString(`"tools":`)
	if err := json.Compact(&b, []byte(tools)); err != nil {
		return nil, fmt.Errorf("tools: %w", err)
	}
	if strings.TrimSpace(choice) != "" {
		b.WriteString(`,"tool_choice":`)
		if err := json.Compact(&b, []byte(choice)); err != nil {
			return nil, fmt.Errorf("tool_choice: not JSON: %w", err)
		}
	}
	ts.members = b.Bytes()
	return ts, nil
}

// compileSchema compiles the JSON schema src.
func compileSchema(name string, src []byte) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(src))
	if err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(name, doc); err != nil {
		return nil, err
	}
	sch, err := c.Compile(name)
	if err != nil {
		return nil, fmt.Errorf("not a valid JSON schema: %w", err)
	}
	return sch, nil
}

// validCall reports whether a call names one of the tools and its
// arguments parse as JSON and validate against the tool's parameters.
func (ts *toolSet) validCall(c *toolCallBuf) bool {
	sch, ok := ts.schemas[c.name]
	if !ok {
		return false
	}
	args := c.args.String()
	if strings.TrimSpace(args) == "" {
		args = "{}"
	}
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(args))
	if err != nil {
		return false
	}
	if sch == nil {
		_, isObject := v.(map[string]any)
		return isObject
	}
	return sch.Validate(v) == nil
}

// fill writes the answer's tool calls into rec: their count, whether all
// were valid, and the time from sent to their last argument piece.
func (ts *toolSet) fill(rec *results.Record, tc *toolCalls, sent time.Time) {
	valid := true
	for i := range tc.calls {
		valid = valid && ts.validCall(&tc.calls[i])
	}
	rec.ToolCallValid, rec.ToolCalls = &valid, len(tc.calls)
	if len(tc.calls) > 0 && !tc.last.IsZero() {
		rec.ToolCallTime = tc.last.Sub(sent)
	}
}

// bodyMemberOf is the first of keys that the encoded body members
// (`"k":v,...`, as runspec.Request.ExtraBody holds them) set, or "".
func bodyMemberOf(members []byte, keys ...string) string {
	if len(bytes.TrimSpace(members)) == 0 {
		return ""
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(append(append([]byte{'{'}, members...), '}'), &m) != nil {
		return ""
	}
	for _, k := range keys {
		if _, ok := m[k]; ok {
			return k
		}
	}
	return ""
}
