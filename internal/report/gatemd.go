package report

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/runspec"
	"github.com/llmgate/llmgate/untrusted"
)

// gateBlocks are the GitHub alert blocks that go under the heading: a
// CAUTION naming why the gate could not judge (when its decision is error
// and problems are given), then one NOTE per note.
func gateBlocks(c *compare.Comparison, problems []error, notes []string) string {
	var b strings.Builder
	if len(problems) > 0 && c.Decide() == compare.DecisionError {
		b.WriteString("> [!CAUTION]\n> **The gate could not judge this change.**\n")
		for _, p := range problems {
			fmt.Fprintf(&b, "> - %s\n", untrusted.Markdown(p.Error())) // may quote the server
		}
		b.WriteString("\n")
	}
	for _, n := range notes {
		fmt.Fprintf(&b, "> [!NOTE]\n> %s\n\n", untrusted.Markdown(n))
	}
	return b.String()
}

// InvalidSuiteMarkdown is the step summary of a suite that did not load:
// each error at its file:line:col, so the job page says why nothing ran.
// diags are the suite's (suite.PlainDiagnostics).
func InvalidSuiteMarkdown(path string, diags []runspec.Diagnostic) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### llmgate · %s: ⛔ invalid suite, nothing ran\n\n", untrusted.Markdown(path))
	for _, d := range diags {
		if d.Severity != runspec.Error {
			continue
		}
		pos := path
		if !d.Source.IsZero() {
			pos = d.Source.String()
		}
		fmt.Fprintf(&b, "- %s: **%s**", untrusted.Code(pos), untrusted.Markdown(d.Summary))
		if d.Detail != "" {
			fmt.Fprintf(&b, " %s", untrusted.Markdown(d.Detail))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// defaultTitle is "llmgate · SUITE", the heading of compare's and gate's
// reports alike; "llmgate" when the suite has no name.
func defaultTitle(c *compare.Comparison) string {
	if c == nil || c.Current == nil || c.Current.Suite.Name == "" {
		return "llmgate"
	}
	return "llmgate · " + untrusted.Markdown(c.Current.Suite.Name)
}

// CheckReportURL accepts an absolute http or https URL that can sit in a
// markdown link as it is: no blanks, quotes, brackets, parentheses or
// control characters (a workflow's artifact URL has none).
func CheckReportURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("report URL %q: %w", s, err)
	}
	if (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("report URL %q: want an absolute http or https URL", s)
	}
	if i := strings.IndexFunc(s, func(r rune) bool {
		return r <= ' ' || r == 0x7f || strings.ContainsRune("\"'`<>()[]{}\\|", r)
	}); i >= 0 {
		return fmt.Errorf("report URL %q: character %q at %d cannot sit in a markdown link; percent-encode it", s, s[i], i)
	}
	return nil
}
