package report

import (
	"errors"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/internal/comparetest"
	"github.com/llmgate/llmgate/internal/hostile"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/untrusted"
)

// outside is text from outside llmgate that would act in a sink: a
// workflow command, HTML, a mention, references, autolinks, code-span
// breakouts, a terminal escape and a bidi override. A results file read
// back holds none of the controls (Check); a sink must be safe anyway.
const outside = "::error title=Forged::x </details><img src=x> @team ``a`` https://evil.example www.evil.example octo/gate#1 #2 GH-3 \x1b[2J\u202e"

// The report's sinks escape every string that comes from a results file:
// run and scenario names, sweep values, assert names, conditions and
// messages, environment fields, not-judged reasons and warnings, in the
// markdown (step summary, PR comment) and the terminal.
func TestSinksEscapeOutsideText(t *testing.T) {
	env := results.Environment{Model: untrusted.String(outside), Image: untrusted.String(outside)}
	spec := comparetest.RunSpec{Name: "chat " + outside, Scenario: "chat " + outside, Params: map[string]string{"k": outside}, TTFT: 100, TPOT: 9, E2EL: 2000, OutTokPerSec: 1000, ReqPerSec: 4}
	bad := spec
	bad.Name, bad.Status = "bad "+outside, results.StatusFailed
	base := comparetest.File(results.Environment{Model: "m", Image: "i"}, spec, bad)
	cur := comparetest.File(env, spec, bad)
	cur.Suite.Name = "s " + outside
	cur.Runs[1].Error = untrusted.String(outside)
	cur.Runs[0].Asserts = []results.AssertResult{{Name: "a " + outside, Condition: untrusted.String(outside), Message: untrusted.String(outside)}}
	c := compare.Compare(base, cur, compare.DefaultConfig())
	c.AddProblem(errors.New(outside))
	md := Markdown(c, MarkdownOptions{Notes: []string{outside}})
	live := hostile.Live(md)
	for _, bad := range append(hostile.ActiveMarkdown, "https://", "\x1b") {
		if strings.Contains(live, bad) {
			for _, l := range strings.Split(live, "\n") {
				if strings.Contains(l, bad) {
					t.Errorf("markdown holds %q outside code: %s", bad, l)
				}
			}
		}
	}
	for _, l := range strings.Split(md, "\n") {
		if (strings.Contains(l, "x-axis") || strings.Contains(l, "title ")) && strings.ContainsAny(l, "<>`") {
			t.Errorf("a mermaid label holds markup: %s", l)
		}
	}
	if !strings.Contains(md, "Forged") {
		t.Fatalf("the outside text is not in the markdown at all:\n%s", md)
	}
	var term strings.Builder
	if err := Terminal(&term, c, TerminalOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := RunTable(&term, cur); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(term.String(), "\n") {
		if strings.HasPrefix(strings.TrimLeft(l, " \t"), "::") {
			t.Errorf("terminal line reads as a workflow command: %q", l)
		}
	}
	if strings.ContainsAny(term.String(), "\x1b\u202e") {
		t.Errorf("terminal output holds an escape or a bidi override:\n%q", term.String())
	}
}
