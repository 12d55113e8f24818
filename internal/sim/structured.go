package sim

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// jsonGen writes a JSON value that validates against a JSON Schema, with
// content drawn from a seeded random sequence. It covers what structured
// output schemas use in practice: type (object, array, string, integer,
// number, boolean, null, and lists of types), properties and required,
// items with minItems/maxItems, enum, const, anyOf/oneOf/allOf (first
// branch), $ref to #/$defs or #/definitions, minimum/maximum,
// minLength/maxLength and common formats. It does not satisfy "pattern".
type jsonGen struct {
	root  map[string]any
	state uint64
	tok   *Tokenizer
}

func (g *jsonGen) next() uint64 {
	g.state += 0x9e3779b97f4a7c15
	return mix64(g.state)
}

// words appends n space-separated generated words (no leading space).
func (g *jsonGen) words(b []byte, n int) []byte {
	for i := 0; i < n; i++ {
		w := g.tok.Piece(g.tok.word(g.next()))
		if i == 0 {
			w = strings.TrimPrefix(w, " ")
		}
		b = append(b, w...)
	}
	return b
}

// Bounds on a generated answer, so that a recursive or extreme schema
// costs a request its max_tokens, not the server its memory or stack.
const (
	maxDepth  = 12   // nesting, $ref hops included; deeper values are null
	maxItems  = 64   // array items, whatever minItems says
	maxString = 4096 // string length, whatever minLength says
)

func (g *jsonGen) gen(b []byte, schema any, depth int) ([]byte, error) {
	s, ok := schema.(map[string]any)
	if !ok {
		if v, isBool := schema.(bool); isBool && !v {
			return nil, fmt.Errorf("schema false admits no value")
		}
		return g.word(b), nil // true or missing: any value
	}
	if depth > maxDepth { // before $ref: a schema may refer to itself
		return append(b, "null"...), nil
	}
	if ref, ok := s["$ref"].(string); ok {
		target, err := g.resolve(ref)
		if err != nil {
			return nil, err
		}
		return g.gen(b, target, depth+1)
	}
	if c, ok := s["const"]; ok {
		j, _ := json.Marshal(c)
		return append(b, j...), nil
	}
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		j, _ := json.Marshal(e[g.next()%uint64(len(e))])
		return append(b, j...), nil
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		if alts, ok := s[k].([]any); ok && len(alts) > 0 {
			if k == "allOf" {
				merged := map[string]any{}
				for _, a := range alts {
					if am, ok := a.(map[string]any); ok {
						for kk, vv := range am {
							merged[kk] = vv
						}
					}
				}
				return g.gen(b, merged, depth+1)
			}
			return g.gen(b, alts[0], depth+1)
		}
	}
	typ := s["type"]
	if ts, ok := typ.([]any); ok && len(ts) > 0 {
		typ = ts[0]
		for _, t := range ts { // prefer a non-null type
			if t != "null" {
				typ = t
				break
			}
		}
	}
	if typ == nil {
		switch {
		case s["properties"] != nil:
			typ = "object"
		case s["items"] != nil:
			typ = "array"
		default:
			typ = "string"
		}
	}
	switch typ {
	case "object":
		return g.object(b, s, depth)
	case "array":
		lo, hi := min(intKW(s, "minItems", 1), maxItems), min(intKW(s, "maxItems", 3), maxItems)
		if hi < lo {
			hi = lo
		}
		n := lo + int(g.next()%uint64(hi-lo+1))
		b = append(b, '[')
		for i := 0; i < n; i++ {
			if i > 0 {
				b = append(b, ", "...)
			}
			var err error
			if b, err = g.gen(b, s["items"], depth+1); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case "string":
		return g.str(b, s), nil
	case "integer":
		lo, hi := numKW(s, "minimum", 0), numKW(s, "maximum", 100)
		if v, ok := s["exclusiveMinimum"].(float64); ok {
			lo = v + 1
		}
		if v, ok := s["exclusiveMaximum"].(float64); ok {
			hi = v - 1
		}
		l, h := int64(ceil(lo)), int64(hi)
		if h < l {
			h = l
		}
		return strconv.AppendInt(b, l+int64(g.next()%uint64(h-l+1)), 10), nil
	case "number":
		lo, hi := numKW(s, "minimum", 0), numKW(s, "maximum", 100)
		if hi < lo {
			hi = lo
		}
		v := lo + (hi-lo)*float64(g.next()%1000)/1000
		return strconv.AppendFloat(b, v, 'f', -1, 64), nil
	case "boolean":
		return strconv.AppendBool(b, g.next()%2 == 0), nil
	case "null":
		return append(b, "null"...), nil
	}
	return nil, fmt.Errorf("unsupported schema type %v", typ)
}

func ceil(f float64) float64 {
	i := float64(int64(f))
	if i < f {
		return i + 1
	}
	return i
}

func (g *jsonGen) word(b []byte) []byte {
	b = append(b, '"')
	b = g.words(b, 1)
	return append(b, '"')
}

func (g *jsonGen) object(b []byte, s map[string]any, depth int) ([]byte, error) {
	props, _ := s["properties"].(map[string]any)
	b = append(b, '{')
	if props == nil {
		// json_object or a free-form object: a few string fields.
		n := 2 + int(g.next()%3)
		for i := 0; i < n; i++ {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = append(b, '"')
			b = g.words(b, 1)
			b = append(b, "\": "...)
			b = g.str(b, nil)
		}
		return append(b, '}'), nil
	}
	// Keys in a stable order: required ones in schema order, then the rest.
	keys := make([]string, 0, len(props))
	if req, ok := s["required"].([]any); ok {
		for _, k := range req {
			if ks, ok := k.(string); ok {
				if _, ok := props[ks]; ok {
					keys = append(keys, ks)
				}
			}
		}
	}
	for _, k := range sortedKeys(props) {
		if !contains(keys, k) {
			keys = append(keys, k)
		}
	}
	for i, k := range keys {
		if i > 0 {
			b = append(b, ", "...)
		}
		kj, _ := json.Marshal(k)
		b = append(b, kj...)
		b = append(b, ": "...)
		var err error
		if b, err = g.gen(b, props[k], depth+1); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

func (g *jsonGen) str(b []byte, s map[string]any) []byte {
	if s != nil {
		switch s["format"] {
		case "date-time":
			return append(b, fmt.Sprintf("\"2025-%02d-%02dT%02d:%02d:00Z\"", 1+g.next()%12, 1+g.next()%28, g.next()%24, g.next()%60)...)
		case "date":
			return append(b, fmt.Sprintf("\"2025-%02d-%02d\"", 1+g.next()%12, 1+g.next()%28)...)
		case "email":
			b = append(b, '"')
			b = g.words(b, 1)
			return append(b, "@example.com\""...)
		case "uuid":
			return append(b, fmt.Sprintf("\"%08x-%04x-4%03x-8%03x-%012x\"", uint32(g.next()), uint16(g.next()), g.next()%0x1000, g.next()%0x1000, g.next()%(1<<48))...)
		case "uri":
			b = append(b, "\"https://example.com/"...)
			b = g.words(b, 1)
			return append(b, '"')
		}
	}
	minLen, maxLen := min(intKW(s, "minLength", 0), maxString), intKW(s, "maxLength", 0)
	n := 1 + int(g.next()%6)
	var body []byte
	body = g.words(body, n)
	for len(body) < minLen {
		body = append(body, 'x')
	}
	if maxLen > 0 && len(body) > maxLen {
		body = body[:maxLen]
	}
	b = append(b, '"')
	b = append(b, body...)
	return append(b, '"')
}

func (g *jsonGen) resolve(ref string) (any, error) {
	for _, prefix := range []string{"#/$defs/", "#/definitions/"} {
		if name, ok := strings.CutPrefix(ref, prefix); ok {
			defs, _ := g.root[strings.TrimSuffix(strings.TrimPrefix(prefix, "#/"), "/")].(map[string]any)
			if t, ok := defs[name]; ok {
				return t, nil
			}
		}
	}
	if ref == "#" {
		return g.root, nil
	}
	return nil, fmt.Errorf("unsupported $ref %q", ref)
}

func intKW(s map[string]any, k string, def int) int {
	if v, ok := s[k].(float64); ok {
		return int(v)
	}
	return def
}

func numKW(s map[string]any, k string, def float64) float64 {
	if v, ok := s[k].(float64); ok {
		return v
	}
	return def
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// structuredAnswer generates the whole answer for a schema (nil schema =
// json_object) as token ids.
func structuredAnswer(tok *Tokenizer, schema any, seed uint64) ([]int, error) {
	root, _ := schema.(map[string]any)
	g := &jsonGen{root: root, state: seed, tok: tok}
	if schema == nil {
		schema = map[string]any{"type": "object"}
	}
	text, err := g.gen(nil, schema, 0)
	if err != nil {
		return nil, err
	}
	return tok.Tokenize(string(text)), nil
}

// breakStructured reports whether the answer of the request with seed key
// is one of the fraction rate that --invalid-structured-rate cuts off
// half-way. A strict prefix of a JSON object or array never parses, so
// the cut answer fails any client's validation, while the response itself
// stays well-formed (finish_reason "stop").
func breakStructured(key uint64, rate float64) bool {
	return rate > 0 && float64(mix64(key^0x2545f4914f6cdd1d)>>11)/float64(1<<53) < rate
}
