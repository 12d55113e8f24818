package results

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// JSONLimits bound what a JSON input may hold, checked by one pass over its
// bytes before it is decoded: a document within them decodes in memory and
// time proportional to its size, with no key read twice.
type JSONLimits struct {
	// MaxDepth bounds the nesting of objects and arrays.
	MaxDepth int
	// MaxString bounds one string literal, in bytes as written.
	MaxString int
	// MaxArray bounds the elements of one array.
	MaxArray int
	// MaxValues bounds the values (numbers, strings, literals, objects and
	// arrays) of the whole document.
	MaxValues int
}

// The limits results files, merge inputs and imports are read with. A
// million-request run writes about 10 million values (three sample arrays
// and seven request-log columns of a million entries), arrays of a million
// and strings of a few kilobytes; the limits are four times that, and
// nesting deeper than the schema's dozen levels is never llmgate's.
var inputLimits = JSONLimits{MaxDepth: 32, MaxString: 1 << 20, MaxArray: 4 << 20, MaxValues: 40 << 20}

// ErrJSON is wrapped by the errors of CheckJSON.
var ErrJSON = fmt.Errorf("malformed JSON")

// CheckJSON reports whether data is one JSON document within lim whose
// objects never repeat a key. Keys are compared as encoding/json matches
// them to struct fields, without regard to case, so that {"runs": …,
// "Runs": …} is refused rather than read as its last entry. The error names
// the byte offset and the path of the value ($.runs[0].name).
func CheckJSON(data []byte, lim JSONLimits) error {
	s := &jsonScanner{data: data, lim: lim}
	s.skipSpace()
	if err := s.value(); err != nil {
		return err
	}
	s.skipSpace()
	if s.i != len(s.data) {
		return s.fail("data after the end of the document")
	}
	return nil
}

// CheckJSONDocuments is CheckJSON for input that may hold several JSON
// documents one after another (vllm bench's --append-result), each within
// lim; it returns them in order, as slices of data.
func CheckJSONDocuments(data []byte, lim JSONLimits) ([][]byte, error) {
	var docs [][]byte
	s := &jsonScanner{data: data, lim: lim}
	for {
		s.skipSpace()
		if s.i == len(s.data) {
			return docs, nil
		}
		start := s.i
		s.values = 0
		if err := s.value(); err != nil {
			if len(docs) > 0 {
				return nil, fmt.Errorf("document %d: %w", len(docs)+1, err)
			}
			return nil, err
		}
		docs = append(docs, data[start:s.i])
	}
}

// jsonScanner is CheckJSON's state: the input, the position and the path of
// open containers.
type jsonScanner struct {
	data   []byte
	i      int
	lim    JSONLimits
	values int
	path   []jsonFrame
}

// jsonFrame is one open container: an object's keys so far and the key
// being read, or an array's index.
type jsonFrame struct {
	object bool
	keys   map[string]struct{}
	key    string
	index  int
}

func (s *jsonScanner) fail(format string, a ...any) error {
	var p strings.Builder
	p.WriteString("$")
	for _, f := range s.path {
		if f.object {
			if f.key != "" {
				p.WriteString("." + f.key)
			}
		} else {
			p.WriteString("[" + strconv.Itoa(f.index) + "]")
		}
	}
	return fmt.Errorf("%w at byte %d (%s): %s", ErrJSON, s.i, p.String(), fmt.Sprintf(format, a...))
}

func (s *jsonScanner) skipSpace() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// value reads one value at s.i.
func (s *jsonScanner) value() error {
	if s.values++; s.values > s.lim.MaxValues {
		return s.fail("more than %d values", s.lim.MaxValues)
	}
	if s.i >= len(s.data) {
		return s.fail("unexpected end of input")
	}
	switch c := s.data[s.i]; {
	case c == '{' || c == '[':
		return s.container(c == '{')
	case c == '"':
		_, err := s.str(false)
		return err
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	default:
		return s.fail("unexpected %q", rune(c))
	}
}

// container reads an object or an array, iteratively over its members so
// that a long array costs no recursion.
func (s *jsonScanner) container(object bool) error {
	if len(s.path) >= s.lim.MaxDepth {
		return s.fail("nested more than %d levels deep", s.lim.MaxDepth)
	}
	s.i++ // { or [
	s.path = append(s.path, jsonFrame{object: object})
	depth := len(s.path) - 1 // s.path[depth] is this container; values inside may reallocate s.path
	closer := byte(']')
	if object {
		closer = '}'
	}
	s.skipSpace()
	if s.i < len(s.data) && s.data[s.i] == closer {
		s.i++
		s.path = s.path[:len(s.path)-1]
		return nil
	}
	for n := 0; ; n++ {
		if object {
			if err := s.member(depth); err != nil {
				return err
			}
		} else {
			s.path[depth].index = n
			if n >= s.lim.MaxArray {
				return s.fail("an array of more than %d elements", s.lim.MaxArray)
			}
			if err := s.value(); err != nil {
				return err
			}
		}
		s.skipSpace()
		if s.i >= len(s.data) {
			return s.fail("unexpected end of input")
		}
		switch s.data[s.i] {
		case ',':
			s.i++
			s.skipSpace()
		case closer:
			s.i++
			s.path = s.path[:len(s.path)-1]
			return nil
		default:
			return s.fail("want , or %c, got %q", closer, rune(s.data[s.i]))
		}
	}
}

// member reads `"key": value` of the object s.path[depth].
func (s *jsonScanner) member(depth int) error {
	if s.i >= len(s.data) || s.data[s.i] != '"' {
		return s.fail("want a quoted key")
	}
	key, err := s.str(true)
	if err != nil {
		return err
	}
	f := &s.path[depth]
	folded := foldKey(key)
	if _, dup := f.keys[folded]; dup {
		return s.fail("the key %q appears twice in one object (keys are matched without regard to case); a file llmgate wrote never repeats one", key)
	}
	if f.keys == nil {
		f.keys = map[string]struct{}{}
	}
	f.keys[folded] = struct{}{}
	f.key = key
	s.skipSpace()
	if s.i >= len(s.data) || s.data[s.i] != ':' {
		return s.fail("want : after the key %q", key)
	}
	s.i++
	s.skipSpace()
	return s.value()
}

// str reads a string literal; with decode it returns its value.
func (s *jsonScanner) str(decode bool) (string, error) {
	start := s.i
	s.i++ // opening quote
	escaped := false
	for {
		if s.i >= len(s.data) {
			return "", s.fail("unterminated string")
		}
		c := s.data[s.i]
		switch {
		case c == '"':
			s.i++
			if s.i-start-2 > s.lim.MaxString {
				return "", s.fail("a string of %d bytes, more than %d", s.i-start-2, s.lim.MaxString)
			}
			if !decode {
				return "", nil
			}
			if !escaped {
				return string(s.data[start+1 : s.i-1]), nil
			}
			var v string
			if err := json.Unmarshal(s.data[start:s.i], &v); err != nil {
				return "", s.fail("bad string: %v", err)
			}
			return v, nil
		case c == '\\':
			escaped = true
			if s.i+1 >= len(s.data) {
				return "", s.fail("unterminated string")
			}
			switch s.data[s.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i += 2
			case 'u':
				if s.i+6 > len(s.data) || !isHex4(s.data[s.i+2:s.i+6]) {
					return "", s.fail("bad \\u escape")
				}
				s.i += 6
			default:
				return "", s.fail("bad escape \\%c", s.data[s.i+1])
			}
		case c < 0x20:
			return "", s.fail("a control character in a string")
		default:
			s.i++
		}
	}
}

func isHex4(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// number reads a number as JSON's grammar has it.
func (s *jsonScanner) number() error {
	d := s.data
	i := s.i
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	default:
		return s.fail("bad number")
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			return s.fail("bad number")
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			return s.fail("bad number")
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	s.i = i
	return nil
}

func (s *jsonScanner) literal(word string) error {
	if len(s.data)-s.i < len(word) || string(s.data[s.i:s.i+len(word)]) != word {
		return s.fail("unexpected %q", rune(s.data[s.i]))
	}
	s.i += len(word)
	return nil
}

// foldKey is key in the case-folded form under which encoding/json matches
// it to a struct field: each rune replaced by the smallest of its simple
// case folds (so K, k and the Kelvin sign are one).
func foldKey(key string) string {
	ascii := true
	for i := 0; i < len(key); i++ {
		if key[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(key)
	}
	var b strings.Builder
	for _, r := range key {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		b.WriteRune(unicode.ToLower(least))
	}
	return b.String()
}
