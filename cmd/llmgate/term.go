package main

import (
	"fmt"
	"io"
	"os"

	"github.com/hashicorp/hcl/v2"
	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/internal/ghaction"
	"github.com/llmgate/llmgate/internal/suite"
)

// isTerminal reports whether w is a terminal (a character device), without
// any dependency: redirected output, pipes and test buffers are not.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// colorDiagnostics reports whether diagnostics should be highlighted:
// stderr is a terminal and NO_COLOR is unset.
func colorDiagnostics(e *env) bool {
	return e.getenv("NO_COLOR") == "" && e.stderrTTY
}

// loadSuite loads the suite at path and prints its diagnostics, errors and
// warnings, to stderr. The suite is never nil; err is a failure to print.
func loadSuite(e *env, path string, vars map[string]string) (*suite.Suite, hcl.Diagnostics, error) {
	s, diags := suite.Load(path, suite.Options{Vars: vars, Getenv: e.getenv})
	if s == nil {
		s = &suite.Suite{Filename: path}
	}
	e.addSecrets(s) // before the diagnostics, which may quote them
	if len(diags) > 0 {
		if err := suite.WriteDiagnostics(e.stderr, s.Files, diags, colorDiagnostics(e)); err != nil {
			return s, diags, err
		}
	}
	return s, diags, nil
}

// printFailedAsserts prints one line per failed assert, its position first:
// "gate.hcl:31:21: assert "fast" failed in chat: MESSAGE (VALUES)".
func printFailedAsserts(w io.Writer, failed []compare.FailedAssert) {
	for _, fa := range failed {
		fmt.Fprintf(w, "%s: assert %q failed in %s: %s\n", assertPos(fa), fa.Assert.Name, fa.Run, ghaction.AssertText(fa.Assert))
	}
}

// assertPos is file:line:col of a failed assert's condition, or "llmgate"
// when the results file does not say (an imported file).
func assertPos(fa compare.FailedAssert) string {
	if fa.Assert.File == "" {
		return "llmgate"
	}
	return fmt.Sprintf("%s:%d:%d", fa.Assert.File, fa.Assert.Line, fa.Assert.Column)
}
