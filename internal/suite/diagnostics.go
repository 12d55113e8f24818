package suite

import (
	"bytes"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
)

// diagWidth is the width hcl wraps diagnostic details at.
const diagWidth = 100

// WriteDiagnostics renders diags for people: each starts with a
// "file:line:col: Error: summary" line (what editors and CI annotations
// parse), followed by hcl's source snippet and the detail. files supplies
// the snippets (Suite.Files); color adds terminal highlighting.
func WriteDiagnostics(w io.Writer, files map[string]*hcl.File, diags hcl.Diagnostics, color bool) error {
	for _, d := range diags {
		sev := "Error"
		if d.Severity == hcl.DiagWarning {
			sev = "Warning"
		}
		head := sev + ": " + d.Summary
		if d.Subject != nil {
			head = fmt.Sprintf("%s:%d:%d: %s", d.Subject.Filename, d.Subject.Start.Line, d.Subject.Start.Column, head)
		}
		var buf bytes.Buffer
		if err := hcl.NewDiagnosticTextWriter(&buf, files, diagWidth, color).WriteDiagnostic(d); err != nil {
			return fmt.Errorf("write diagnostics: %w", err)
		}
		// hcl's writer opens with its own "Error: summary" line; ours replaces it.
		body := buf.Bytes()
		if i := bytes.IndexByte(body, '\n'); i >= 0 {
			body = body[i+1:]
		}
		body = cutLongLines(body, maxSnippetLine, color)
		if _, err := fmt.Fprintf(w, "%s\n%s", head, body); err != nil {
			return fmt.Errorf("write diagnostics: %w", err)
		}
	}
	return nil
}

// maxSnippetLine bounds a printed source line, in bytes: one line of a
// hostile file can be megabytes long.
const maxSnippetLine = 240

// cutLongLines shortens every line of b longer than n bytes to n bytes (at
// a character boundary) and an ellipsis, resetting colours when they are on.
func cutLongLines(b []byte, n int, color bool) []byte {
	lines := bytes.Split(b, []byte("\n"))
	for i, l := range lines {
		if len(l) <= n {
			continue
		}
		cut := n
		for cut > 0 && !utf8.RuneStart(l[cut]) {
			cut--
		}
		l = append(bytes.Clone(l[:cut]), " …"...)
		if color {
			l = append(l, "\x1b[0m"...)
		}
		lines[i] = l
	}
	return bytes.Join(lines, []byte("\n"))
}
