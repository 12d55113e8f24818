package untrusted

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text makes multi-line text from outside llmgate (a server's error body, a
// container's log) safe to print to a terminal or a CI log: secrets masked,
// carriage returns turned into line breaks, terminal escape sequences and
// other control characters removed (tabs and newlines stay), and every line
// that a GitHub Actions runner would read as a workflow command ("::error",
// "::add-mask::", the older "##[...]") defused with a backslash.
func Text(s string) string {
	s = Mask(stripControls(s))
	if !strings.Contains(s, "::") && !strings.Contains(s, "##[") {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = defuseCommand(l)
	}
	return strings.Join(lines, "\n")
}

// Line is Text on one line: line breaks and tabs become spaces, so the text
// can sit inside llmgate's own message without starting a line of its own.
func Line(s string) string {
	s = Text(s)
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return ' '
		}
		return r
	}, s)
}

// Short is Line cut to at most max bytes on a rune boundary, with "…" after
// it when something was cut: for a reason or a name a server gave that
// llmgate only shows.
func Short(s string, max int) string {
	s = Line(s)
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// MaxShown is a sensible bound for outside text shown inline in a
// message: a screen line or two.
const MaxShown = 200

// FirstLine is the first line of s as Short makes it (one safe line of
// at most max bytes): for an error whose first line says what happened and
// whose rest (a container's log tail) belongs in the results file, not on
// a progress line or in a headline.
func FirstLine(s string, max int) string {
	first, _, _ := strings.Cut(strings.TrimLeft(s, "\n"), "\n")
	return Short(first, max)
}

// defuseCommand puts a backslash before a workflow command at the start of
// l (after any blanks, which the runner skips).
func defuseCommand(l string) string {
	t := strings.TrimLeft(l, " \t")
	if strings.HasPrefix(t, "::") || strings.HasPrefix(t, "##[") {
		return l[:len(l)-len(t)] + `\` + t
	}
	return l
}

// stripControls removes ANSI escape sequences and control characters other
// than tab and newline, maps CR and CRLF to newline, and replaces invalid
// UTF-8 with U+FFFD.
func stripControls(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || (isControl(r) && r != '\n' && r != '\t') || r == 0x7f {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			b.WriteRune(utf8.RuneError)
		case r == '\r':
			if i+1 >= len(s) || s[i+1] != '\n' {
				b.WriteByte('\n')
			}
		case r == 0x1b || r == 0x9b: // ESC or CSI: skip the whole sequence
			i += escapeLen(s[i:])
			continue
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case isControl(r) || r == 0x7f:
			// dropped
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// isControl covers C0, C1 and the bidirectional controls (IsBidi).
func isControl(r rune) bool {
	return unicode.IsControl(r) || IsBidi(r)
}

// IsBidi reports the Unicode formatting characters that reorder text
// (embeddings, overrides, isolates and the directional marks), which can
// make a name or a log line read other than it is.
func IsBidi(r rune) bool {
	return (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0x061c
}

// StripControls removes terminal escape sequences, control characters
// other than tab and newline, and bidirectional controls from s; carriage
// returns become newlines and invalid UTF-8 becomes U+FFFD. It masks
// nothing: Text is StripControls, masking and defused workflow commands.
func StripControls(s string) string { return stripControls(s) }

// escapeLen is the length of the escape sequence at the start of s (ESC or
// CSI first): CSI "ESC [" parameters and a final byte, OSC "ESC ]" up to BEL
// or ST, or ESC and one more character.
func escapeLen(s string) int {
	start := 1
	if s[0] == 0x1b {
		if len(s) < 2 {
			return 1
		}
		switch s[1] {
		case '[':
			start = 2
		case ']', 'P', '_', '^': // OSC, DCS, APC, PM: up to BEL or ESC \
			for i := 2; i < len(s); i++ {
				if s[i] == 0x07 {
					return i + 1
				}
				if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\' {
					return i + 2
				}
			}
			return len(s)
		default:
			_, size := utf8.DecodeRuneInString(s[1:])
			return 1 + size
		}
	} else {
		_, start = utf8.DecodeRuneInString(s) // U+009B
	}
	for i := start; i < len(s); i++ {
		if c := s[i]; c >= 0x40 && c <= 0x7e {
			return i + 1
		} else if c < 0x20 || c >= 0x80 {
			return i
		}
	}
	return len(s)
}
