package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// mooncakeRow is one line of a Mooncake trace; fields it does not name are
// ignored, as later releases may add some.
type mooncakeRow struct {
	Timestamp    *float64 `json:"timestamp"`
	InputLength  *int64   `json:"input_length"`
	OutputLength *int64   `json:"output_length"`
	HashIDs      []int64  `json:"hash_ids"`
}

func parseMooncake(line int, b []byte) (Row, float64, bool, error) {
	var m mooncakeRow
	if err := decodeLine(line, b, &m, false, "a Mooncake row"); err != nil {
		return Row{}, 0, false, err
	}
	switch {
	case m.Timestamp == nil:
		return Row{}, 0, false, errAt(line, "no timestamp (ms after the trace's start)")
	case m.InputLength == nil:
		return Row{}, 0, false, errAt(line, "no input_length")
	case m.OutputLength == nil:
		return Row{}, 0, false, errAt(line, "no output_length")
	}
	if err := checkMS(line, *m.Timestamp, "timestamp"); err != nil {
		return Row{}, 0, false, err
	}
	if err := checkLengths(line, *m.InputLength, *m.OutputLength, "input_length", "output_length"); err != nil {
		return Row{}, 0, false, err
	}
	return Row{Input: int(*m.InputLength), Output: int(*m.OutputLength), Hashes: m.HashIDs}, *m.Timestamp, true, nil
}

// jsonlRow is one line of llmgate's own trace format; a field it does not
// name is refused, so that a misspelling is not silently ignored.
type jsonlRow struct {
	Timestamp    *float64  `json:"timestamp"`
	InputTokens  *int64    `json:"input_tokens"`
	OutputTokens *int64    `json:"output_tokens"`
	Prompt       *string   `json:"prompt"`
	Messages     []Message `json:"messages"`
	HashIDs      []int64   `json:"hash_ids"`
}

func parseJSONL(line int, b []byte) (Row, float64, bool, error) {
	var j jsonlRow
	if err := decodeLine(line, b, &j, true, "an llmgate trace row"); err != nil {
		return Row{}, 0, false, err
	}
	if j.Timestamp == nil {
		return Row{}, 0, false, errAt(line, "no timestamp (ms after the trace's start)")
	}
	if err := checkMS(line, *j.Timestamp, "timestamp"); err != nil {
		return Row{}, 0, false, err
	}
	if j.OutputTokens == nil {
		return Row{}, 0, false, errAt(line, "no output_tokens (the answer's length)")
	}
	row := Row{Hashes: j.HashIDs, Messages: j.Messages}
	if j.Prompt != nil {
		row.Prompt = *j.Prompt
	}
	switch {
	case j.Prompt != nil && j.Messages != nil:
		return Row{}, 0, false, errAt(line, "both prompt and messages: a row is a completion (prompt) or a chat (messages), not both")
	case j.Prompt != nil && *j.Prompt == "":
		return Row{}, 0, false, errAt(line, "prompt is empty")
	case j.Messages != nil && len(j.Messages) == 0:
		return Row{}, 0, false, errAt(line, "messages is empty")
	case row.HasText() && j.HashIDs != nil:
		return Row{}, 0, false, errAt(line, "hash_ids with a prompt: hash ids make a prompt's content, and this row has its own; drop one")
	}
	for i, m := range j.Messages {
		if m.Role == "" || m.Content == "" {
			return Row{}, 0, false, errAt(line, "messages[%d] needs a role and a content", i)
		}
	}
	in := int64(0)
	switch {
	case j.InputTokens != nil:
		in = *j.InputTokens
	case row.HasText():
		in, row.Estimated = int64(estimateTokens(row)), true
	default:
		return Row{}, 0, false, errAt(line, "no input_tokens (the prompt's length), and no prompt or messages")
	}
	if err := checkLengths(line, in, *j.OutputTokens, "input_tokens", "output_tokens"); err != nil {
		return Row{}, 0, false, err
	}
	row.Input, row.Output = int(in), int(*j.OutputTokens)
	return row, *j.Timestamp, true, nil
}

// estimateTokens is a row's prompt at a token per 4 bytes, at least 1.
func estimateTokens(r Row) int {
	n := len(r.Prompt)
	for _, m := range r.Messages {
		n += len(m.Content)
	}
	return max(1, (n+3)/4)
}

// decodeLine decodes one JSON object into v: nothing may follow it, and
// with strict no field v does not name may be in it.
func decodeLine(line int, b []byte, v any, strict bool, what string) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		return errAt(line, "not %s: %s", what, jsonProblem(err))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errAt(line, "not %s: more follows the JSON object (one object a line)", what)
	}
	return nil
}

// jsonProblem says what is wrong with a line in the trace's own terms.
func jsonProblem(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		switch te.Type.Kind().String() {
		case "int64":
			return te.Field + " must be a whole number, not " + te.Value
		case "float64":
			return te.Field + " must be a number, not " + te.Value
		case "string":
			return te.Field + " must be a string, not " + te.Value
		}
		if te.Field != "" {
			return te.Field + " is " + te.Value + ", which it cannot be"
		}
		return "a row is a JSON object, not " + te.Value
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return "invalid JSON: " + se.Error()
	}
	return err.Error()
}
