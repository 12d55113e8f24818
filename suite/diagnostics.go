package suite

import (
	"bytes"
	"fmt"
	"io"

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
		if _, err := fmt.Fprintf(w, "%s\n%s", head, body); err != nil {
			return fmt.Errorf("write diagnostics: %w", err)
		}
	}
	return nil
}
