package load

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/llmgate/llmgate/runspec"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// DefaultSchema is the JSON schema the structured workload asks for when the
// runspec gives none (a caller of this package: a suite always gives one,
// since validate refuses a structured workload without a schema).
const DefaultSchema = `{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"},"email":{"type":"string"}},"required":["name","age","email"]}`

// structuredWorkload asks over chat for JSON matching a schema, passed as
// response_format {type: json_schema}, and validates every answer.
type structuredWorkload struct {
	w      runspec.Workload
	key    promptKey
	b      bodyMaker
	raw    json.RawMessage
	schema *jsonschema.Schema
	lens   lengths
}

func newStructuredWorkload(w runspec.Workload, key promptKey, b bodyMaker) (*structuredWorkload, error) {
	src := w.Schema
	if strings.TrimSpace(src) == "" {
		src = DefaultSchema
	}
	sch, err := compileSchema("schema.json", []byte(src))
	if err != nil {
		return nil, fmt.Errorf("structured workload: schema is %w", err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(src)); err != nil {
		return nil, fmt.Errorf("structured workload: schema is not JSON: %w", err)
	}
	return &structuredWorkload{w: w, key: key, b: b, raw: compact.Bytes(), schema: sch}, nil
}

func (sw *structuredWorkload) next(s slot) *request {
	r := rng(sw.key, 4, s.item())
	in := length(r, sw.w.InputTokens, sw.w.RangeRatio)
	out := length(r, sw.w.OutputTokens, sw.w.RangeRatio)
	prompt := sw.prompt(sw.lens.prompt(r, in))
	rf := &responseFormat{Type: "json_schema", JSONSchema: jsonSchema{Name: "llmgate", Schema: sw.raw}}
	req := sw.b.chat([]message{{Role: "user", Content: prompt}}, out, rf)
	req.validate = sw.valid
	req.wantIn = in
	return req
}

// prompt frames the context words x with the instruction and the schema.
func (sw *structuredWorkload) prompt(x string) string {
	return "Reply with only a JSON object that matches this JSON schema: " + string(sw.raw) + "\nContext: " + x
}

func (sw *structuredWorkload) calibration() *calibrationTarget {
	return &calibrationTarget{chat: true, frame: sw.prompt, lens: &sw.lens}
}

// valid reports whether text parses as JSON and validates against the schema.
func (sw *structuredWorkload) valid(text []byte) bool {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(text))
	if err != nil {
		return false
	}
	return sw.schema.Validate(v) == nil
}
