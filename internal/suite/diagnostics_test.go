package suite

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

func TestWriteDiagnostics(t *testing.T) {
	s, diags := loadText(t, `suite "s" { undeclared_vars = "warn" }
scenario "a" {
  load {
    concurrency = 0
    requests    = 5
  }
}`, Options{Vars: map[string]string{"unused": "1"}})
	var plain, color strings.Builder
	if err := WriteDiagnostics(&plain, s.Files, diags, false); err != nil {
		t.Fatal(err)
	}
	out := plain.String()
	// The subjectless warning (an unused --var) comes first and has no position.
	if !strings.HasPrefix(out, "Warning: Value for undeclared variable\n") {
		t.Errorf("warning first line:\n%s", out)
	}
	// The error starts with file:line:col, then hcl's snippet, then the detail.
	for _, want := range []string{
		"suite.hcl:4:19: Error: Invalid concurrency\n",
		"   4:     concurrency = 0\n",
		"must be at least 1",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "Invalid concurrency") != 1 {
		t.Errorf("summary repeated (hcl's own header not replaced):\n%s", out)
	}
	if err := WriteDiagnostics(&color, s.Files, diags, true); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(color.String(), "\x1b[") {
		t.Errorf("color output has no escape codes")
	}
	// A subject in a file the map lacks still renders.
	var missing strings.Builder
	d := hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "x", Subject: &hcl.Range{Filename: "gone.hcl", Start: hcl.Pos{Line: 2, Column: 3}}}}
	if err := WriteDiagnostics(&missing, nil, d, false); err != nil || !strings.HasPrefix(missing.String(), "gone.hcl:2:3: Error: x") {
		t.Errorf("got %q, %v", missing.String(), err)
	}
}
