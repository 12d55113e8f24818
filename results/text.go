package results

import (
	"fmt"
	"reflect"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/llmgate/llmgate/untrusted"
)

// The strings of a results file are outside text when it is read back: a
// baseline from main, a shard from another job, a merge input, a fork's
// artifact. Every one of them is checked on read (Check) and made to pass
// that check on write (Write), by one walk over the file's fields, so a
// field added later is checked without anyone remembering to: a field's
// `text` tag says what it may hold, and an untagged string is free text.
//
//   - text (the default): printable, tabs and line breaks allowed, at most
//     MaxTextBytes; an error with a log tail, an assert's condition.
//   - line: printable on one line, at most MaxLineBytes; an environment
//     field, a path, a version.
//   - name: printable on one line, at most MaxNameBytes; a run's, a
//     scenario's or an assert's name, a sweep key or value.
//
// No string may hold control characters (other than a text's tabs and
// line breaks) or the bidirectional controls that make text read other
// than it is (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C).
const (
	MaxTextBytes = 64 << 10
	MaxLineBytes = 4 << 10
	MaxNameBytes = 512
)

// textClass is what a string field may hold.
type textClass int

const (
	classText textClass = iota
	classLine
	className
)

func (c textClass) String() string {
	return [...]string{"text", "one line", "a name"}[c]
}

func (c textClass) limit() int {
	return [...]int{MaxTextBytes, MaxLineBytes, MaxNameBytes}[c]
}

// classOf reads a field's `text` tag.
func classOf(f reflect.StructField) textClass {
	switch f.Tag.Get("text") {
	case "line":
		return classLine
	case "name":
		return className
	}
	return classText
}

// textProblem says what is wrong with s for class c, "" when nothing is.
func textProblem(s string, c textClass) string {
	if len(s) > c.limit() {
		return fmt.Sprintf("is %d bytes, more than %d for %s", len(s), c.limit(), c)
	}
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			return fmt.Sprintf("is not UTF-8 at byte %d", i)
		case (r == '\n' || r == '\t') && c == classText:
		case unicode.IsControl(r):
			return fmt.Sprintf("holds the control character %U at byte %d (%s must be printable)", r, i, c)
		case untrusted.IsBidi(r):
			return fmt.Sprintf("holds the bidirectional control %U at byte %d, which makes text read other than it is", r, i)
		}
	}
	return ""
}

// cleanText is s made to pass textProblem for c: terminal escapes,
// control and bidirectional characters dropped and carriage returns made
// line breaks (untrusted.StripControls), line breaks and tabs made spaces
// outside text, and what is over the limit cut on a character boundary
// with "…".
func cleanText(s string, c textClass) string {
	if textProblem(s, c) == "" {
		return s
	}
	s = untrusted.StripControls(s)
	if c != classText {
		s = strings.Map(func(r rune) rune {
			if r == '\n' || r == '\t' {
				return ' '
			}
			return r
		}, s)
	}
	if len(s) > c.limit() {
		cut := c.limit() - len("…")
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// walkText calls fn on every string reachable from v (a pointer to a
// struct, or anything inside one), with the class its field's tag gives
// and a path naming it; fn returns the string to keep. Map keys are
// walked as the map's own class. Slices and maps of types that hold no
// string (the samples) are skipped without a look.
func walkText(v reflect.Value, class textClass, path string, fn func(path string, class textClass, s string) string) {
	if !holdsStrings(v.Type()) {
		return
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			walkText(v.Elem(), class, path, fn)
		}
	case reflect.String:
		if s := v.String(); s != "" {
			if out := fn(path, class, s); out != s && v.CanSet() {
				v.SetString(out)
			}
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			walkText(v.Field(i), classOf(f), joinPath(path, name), fn)
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			walkText(v.Index(i), class, fmt.Sprintf("%s[%d]", path, i), fn)
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			val := v.MapIndex(k)
			elemPath := fmt.Sprintf("%s[%q]", path, k.String())
			newKey := k
			if k.Kind() == reflect.String {
				if out := fn(path+" key", class, k.String()); out != k.String() {
					newKey = reflect.ValueOf(out).Convert(k.Type())
				}
			}
			elem := reflect.New(val.Type()).Elem()
			elem.Set(val)
			walkText(elem, class, elemPath, fn)
			if newKey.String() != k.String() || !reflect.DeepEqual(elem.Interface(), val.Interface()) {
				v.SetMapIndex(k, reflect.Value{})
				v.SetMapIndex(newKey, elem)
			}
		}
	}
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// stringSearch finds the types that can hold a string (an interface may,
// and so may a map's keys).
var stringSearch = &kindSearch{leaf: func(k reflect.Kind) bool { return k == reflect.String || k == reflect.Interface }, keys: true}

// holdsStrings reports whether a value of type t can hold a string.
func holdsStrings(t reflect.Type) bool { return stringSearch.holds(t) }

// checkText records each string of f that its field may not hold.
func (c *checker) checkText(f *File) {
	at := c.at
	defer func() { c.at = at }()
	c.at = "file"
	walkText(reflect.ValueOf(f), classText, "", func(path string, class textClass, s string) string {
		if p := textProblem(s, class); p != "" {
			c.fail(fmt.Sprintf("%s %s", path, p))
		}
		return s
	})
}

// CleanText makes every string of f pass the checks Read applies (see
// cleanText), in place: Write calls it, so llmgate's own files always
// read back, whatever a server or a container said.
func (f *File) CleanText() {
	walkText(reflect.ValueOf(f), classText, "", func(_ string, class textClass, s string) string {
		return cleanText(s, class)
	})
}

// NameProblem says why s cannot be a name in a results file (a suite's,
// scenario's, assert's or target's label, a sweep key or value), "" when
// it can: printable on one line, no bidirectional controls, at most
// MaxNameBytes. A suite checks its labels with it, so a results file of
// its runs always reads back.
func NameProblem(s string) string { return textProblem(s, className) }

// LineProblem is NameProblem for a line of text (an error_message): at
// most MaxLineBytes.
func LineProblem(s string) string { return textProblem(s, classLine) }
