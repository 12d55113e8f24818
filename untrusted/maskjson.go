package untrusted

import (
	"bytes"
	"encoding/json"
)

// MaskJSON returns the JSON document data with secrets hidden inside its
// string values only, each decoded, masked and encoded again: numbers,
// literals, keys and the document's structure are never touched, so a
// masked file parses as the unmasked one did, whatever the secrets are.
// data must be valid JSON (what encoding/json wrote); a nil Masker hides
// token shapes only.
func (m *Masker) MaskJSON(data []byte) []byte {
	var out []byte // nil until a string changes
	last := 0      // data[:last] is in out
	for i := 0; i < len(data); {
		j := bytes.IndexByte(data[i:], '"')
		if j < 0 {
			break
		}
		start := i + j
		end := stringEnd(data, start)
		if end < 0 {
			break // not valid JSON: leave the rest as it is
		}
		i = end
		if isKey(data, end) {
			continue
		}
		lit := data[start:end]
		var v string
		if json.Unmarshal(lit, &v) != nil {
			continue
		}
		masked := m.Mask(v)
		if masked == v {
			continue
		}
		enc, err := json.Marshal(masked)
		if err != nil {
			continue
		}
		if out == nil {
			out = make([]byte, 0, len(data))
		}
		out = append(append(out, data[last:start]...), enc...)
		last = end
	}
	if out == nil {
		return data
	}
	return append(out, data[last:]...)
}

// MaskJSON is Masker.MaskJSON with the installed masker.
func MaskJSON(data []byte) []byte { return current.Load().MaskJSON(data) }

// stringEnd is the index just past the string literal that opens at
// data[start], or -1 when it is not closed.
func stringEnd(data []byte, start int) int {
	for i := start + 1; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// isKey reports whether the string literal ending at data[end] is an
// object's key: a colon follows it.
func isKey(data []byte, end int) bool {
	for i := end; i < len(data); i++ {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			continue
		case ':':
			return true
		}
		return false
	}
	return false
}
