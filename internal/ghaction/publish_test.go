package ghaction

import (
	"context"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/internal/ghactiontest"
)

// TestPublishGate checks one call publishes the whole report: the step
// summary, the annotations, the outputs and the comment, all from the
// same markdown.
func TestPublishGate(t *testing.T) {
	gh := ghactiontest.NewGitHub(t, "")
	e := newRunnerEnv(t)
	e.vars["GITHUB_API_URL"] = gh.APIURL()
	e.vars["GITHUB_TOKEN"] = ghactiontest.Token
	r := GateReport{
		Suite:       "suite",
		Markdown:    "### llmgate · suite: ❌ 1 regression\n",
		Annotations: []Annotation{{Kind: Regression, File: "s.hcl", Line: 3, Title: "regression: ttft.p95 in chat", Message: "+20%"}},
		Outputs:     Outputs{Verdict: "fail", Regressions: 1},
		Comment:     true,
	}
	res, err := e.actions().PublishGate(context.Background(), r, nil)
	if err != nil || res.Outcome != CommentCreated {
		t.Fatalf("PublishGate = %+v, %v; want a comment created", res, err)
	}
	if got := e.read(t, "summary.md"); !strings.Contains(got, r.Markdown) {
		t.Errorf("step summary %q lacks the report", got)
	}
	if got := e.read(t, "output"); !strings.Contains(got, "verdict") || !strings.Contains(got, "fail") {
		t.Errorf("outputs %q lack verdict=fail", got)
	}
	if !strings.Contains(e.stdout.String(), "::error") || !strings.Contains(e.stdout.String(), "title=regression%3A ttft.p95 in chat") {
		t.Errorf("annotation missing from the log:\n%s", e.stdout.String())
	}
	if c := gh.Comments(7); len(c) != 1 || !strings.Contains(c[0].Body, r.Markdown) {
		t.Errorf("comments %+v, want one holding the report", c)
	}

	r.Comment = false
	if res, err := e.actions().PublishGate(context.Background(), r, nil); err != nil || res.Outcome != CommentSkipped {
		t.Errorf("with Comment false: %+v, %v; want skipped", res, err)
	}
}
