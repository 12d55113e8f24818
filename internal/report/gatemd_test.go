package report

import (
	"errors"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/internal/comparetest"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
)

// TestMarkdownGateBlocks checks the CAUTION block (only when the gate could
// not judge) and the NOTE blocks sit right under the heading, escaped, with
// the report link after them.
func TestMarkdownGateBlocks(t *testing.T) {
	env := results.Environment{Model: "m"}
	spec := comparetest.RunSpec{Name: "chat", TTFT: 100, TPOT: 9, E2EL: 2000, OutTokPerSec: 1000, ReqPerSec: 4, CV: 0.1, N: 300}
	c := compare.Compare(comparetest.File(env, spec), comparetest.File(env, spec), compare.DefaultConfig())
	opts := MarkdownOptions{
		Problems:  []error{errors.New("server said <img src=x>")},
		Notes:     []string{"no baseline: [x](y) does not exist yet"},
		ReportURL: "https://github.com/o/r/actions/runs/1/artifacts/2",
	}
	md := Markdown(c, opts)
	if strings.Contains(md, "[!CAUTION]") {
		t.Errorf("a gate that judged everything has a CAUTION block:\n%s", md)
	}
	c.AddProblem(errors.New("start server.vllm: timeout"))
	if c.Decide() != compare.DecisionError {
		t.Fatalf("decision %s after a problem, want error", c.Decide())
	}
	md = Markdown(c, opts)
	lines := strings.Split(md, "\n")
	want := []string{
		"",
		"> [!CAUTION]",
		"> **The gate could not judge this change.**",
		"> - server said &lt;img src=x&gt;",
		"",
		"> [!NOTE]",
		`> no baseline: \[x\](y) does not exist yet`,
		"",
		"📄 [Full HTML report](https://github.com/o/r/actions/runs/1/artifacts/2)",
	}
	if !strings.HasPrefix(lines[0], "### llmgate · fixture: ") {
		t.Errorf("heading %q, want the suite's title", lines[0])
	}
	for i, w := range want {
		if i+1 >= len(lines) || lines[i+1] != w {
			t.Fatalf("line %d = %q, want %q:\n%s", i+2, lines[min(i+1, len(lines)-1)], w, md)
		}
	}
}

// TestCheckReportURL checks which report URLs may be linked.
func TestCheckReportURL(t *testing.T) {
	for _, ok := range []string{"https://github.com/o/r/actions/runs/1/artifacts/2", "http://ci.local:8080/r.html?x=1"} {
		if err := CheckReportURL(ok); err != nil {
			t.Errorf("CheckReportURL(%q) = %v, want nil", ok, err)
		}
	}
	for _, bad := range []string{"", "report.html", "javascript:alert(1)", "ftp://x/y", "https://x/a b", "https://x/a)[y](z", "https://x/<b>", "https://x/\n"} {
		if err := CheckReportURL(bad); err == nil {
			t.Errorf("CheckReportURL(%q) = nil, want an error", bad)
		}
	}
}

// TestInvalidSuiteMarkdown checks each error is listed at its position and
// warnings are left out.
func TestInvalidSuiteMarkdown(t *testing.T) {
	diags := []runspec.Diagnostic{
		{Severity: runspec.Error, Summary: "Unsupported argument", Detail: "An argument named \"x\" is not expected here.",
			Source: runspec.Source{File: "s.hcl", Start: runspec.Pos{Line: 3, Column: 5}}},
		{Severity: runspec.Warning, Summary: "deprecated"},
	}
	got := InvalidSuiteMarkdown("s.hcl", diags)
	want := "### llmgate · s.hcl: ⛔ invalid suite, nothing ran\n\n- `s.hcl:3:5`: **Unsupported argument** An argument named \"x\" is not expected here.\n"
	if got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}
