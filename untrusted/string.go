package untrusted

// String is text llmgate did not write, kept as it came (a results file's
// run name, a server's model id, a suite's label) until a sink writes it:
// it cannot be joined to llmgate's own strings without a conversion, so
// each sink says how it escapes it. Printed with fmt (%s, %v, %q) it is its
// Terminal form, so a log line is safe by default.
type String string

// Line is s as one safe line for a terminal, a CI log or an HTML cell
// (Line): secrets masked, controls removed, a workflow command at its
// start defused.
func (s String) Line() string { return Line(string(s)) }

// Text is s safe to print on several lines (Text).
func (s String) Text() string { return Text(string(s)) }

// String is Line, for fmt.
func (s String) String() string { return s.Line() }

// Markdown is s escaped for markdown inline text (Markdown).
func (s String) Markdown() string { return Markdown(string(s)) }

// Code is s as an inline code span (Code).
func (s String) Code() string { return Code(string(s)) }

// Raw is s as it came, for comparing, keying and storing, never for
// printing.
func (s String) Raw() string { return string(s) }

// Strings converts a list of outside texts.
func Strings(l []string) []String {
	out := make([]String, len(l))
	for i, s := range l {
		out[i] = String(s)
	}
	return out
}
