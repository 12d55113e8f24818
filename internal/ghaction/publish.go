package ghaction

import (
	"context"
	"errors"
	"net/http"
)

// GateReport is what a gate publishes on GitHub: built by the report and
// ghaction packages, handed here whole.
type GateReport struct {
	// Suite names the suite; it keys the sticky pull-request comment.
	Suite string
	// Markdown is the report (report.Markdown): the step summary and the
	// comment body.
	Markdown string
	// Annotations go on the suite's lines (GateAnnotations).
	Annotations []Annotation
	// Outputs are the step outputs.
	Outputs Outputs
	// Comment posts or updates the pull-request comment.
	Comment bool
}

// PublishGate appends r's markdown to the step summary, puts its
// annotations, sets its outputs and, when r.Comment, posts or updates the
// pull-request comment (a skipped or refused comment is in the result, not
// an error). The error joins the step-summary and output failures; it is
// nil outside Actions, where nothing is published.
func (a *Actions) PublishGate(ctx context.Context, r GateReport, hc *http.Client) (CommentResult, error) {
	if !a.Enabled() {
		return CommentResult{Outcome: CommentSkipped, Reason: "not running in GitHub Actions"}, nil
	}
	var errs []error
	if err := a.AppendSummary(r.Markdown); err != nil {
		errs = append(errs, err)
	}
	a.Annotate(r.Annotations)
	if err := a.SetOutputs(r.Outputs); err != nil {
		errs = append(errs, err)
	}
	res := CommentResult{Outcome: CommentSkipped, Reason: "comments are off (--comment=false)"}
	if r.Comment {
		res = a.PostComment(ctx, r.Suite, r.Markdown, hc)
	}
	return res, errors.Join(errs...)
}
