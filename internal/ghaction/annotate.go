package ghaction

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
)

// MaxAnnotations is how many error annotations GitHub shows for one step;
// any beyond it are dropped by GitHub without a word.
const MaxAnnotations = 10

// AnnotationKind orders annotations: every regression ranks before every
// failed assert.
type AnnotationKind int

const (
	// Regression marks a metric that moved past its tolerance band, significantly.
	Regression AnnotationKind = iota
	// FailedAssert marks an assert block whose condition did not hold.
	FailedAssert
	// SuiteError marks an error in the suite file itself.
	SuiteError
	// Inconclusive marks a change past (or near) its band that the runs
	// could not call; it is issued as a warning, not an error.
	Inconclusive
)

// String names the kind as the annotation titles do.
func (k AnnotationKind) String() string {
	switch k {
	case Regression:
		return "regression"
	case FailedAssert:
		return "failed assert"
	case SuiteError:
		return "suite error"
	case Inconclusive:
		return "inconclusive"
	}
	return "annotation " + strconv.Itoa(int(k))
}

// Annotation is one error to place on the suite at file:line.
type Annotation struct {
	Kind AnnotationKind
	// File is the suite file; it is made relative to the workspace when issued.
	File string
	// Line and Column locate the block; 0 means unknown.
	Line, Column int
	// Title is the annotation's heading, e.g. "regression: ttft.p95 in chat".
	Title string
	// Message is the body: what was seen against what was allowed.
	Message string
	// Severity ranks annotations of one kind, larger first. For regressions it
	// is how far the change went past the band, as a fraction of the baseline
	// value, so bands in % and in ms rank on one scale.
	Severity float64
}

// Worst returns at most n annotations, the worst first: regressions, then
// failed asserts, then suite errors, then inconclusive changes, each kind by
// Severity with ties kept in input order. The
// second result is how many were left out.
func Worst(anns []Annotation, n int) ([]Annotation, int) {
	sorted := slices.Clone(anns)
	slices.SortStableFunc(sorted, func(x, y Annotation) int {
		if c := cmp.Compare(x.Kind, y.Kind); c != 0 {
			return c
		}
		return cmp.Compare(y.Severity, x.Severity)
	})
	if n < 0 {
		n = 0
	}
	if len(sorted) <= n {
		return sorted, 0
	}
	return sorted[:n], len(sorted) - n
}

// Annotate issues the MaxAnnotations worst errors of anns (regressions,
// failed asserts, suite errors) as error annotations and the MaxAnnotations
// worst Inconclusive ones as warnings, each with one notice counting what had
// to be left out. It returns how many errors it issued.
func (a *Actions) Annotate(anns []Annotation) int {
	if !a.Enabled() || len(anns) == 0 {
		return 0
	}
	var errs, warns []Annotation
	for _, an := range anns {
		if an.Kind == Inconclusive {
			warns = append(warns, an)
		} else {
			errs = append(errs, an)
		}
	}
	shown, left := Worst(errs, MaxAnnotations)
	for _, an := range shown {
		_ = a.command(func() { a.gha.WithFieldsMap(a.fields(an)).Errorf("%s", an.Message) })
	}
	if left > 0 {
		a.Notice("llmgate: more problems", fmt.Sprintf("%d more regressions or failed asserts are not annotated (GitHub shows %d per step); the step summary lists them all.", left, MaxAnnotations))
	}
	wshown, wleft := Worst(warns, MaxAnnotations)
	for _, an := range wshown {
		_ = a.command(func() { a.gha.WithFieldsMap(a.fields(an)).Warningf("%s", an.Message) })
	}
	if wleft > 0 {
		a.Notice("llmgate: more inconclusive changes", fmt.Sprintf("%d more inconclusive changes are not annotated; the step summary lists them all.", wleft))
	}
	return len(shown)
}

// fields are an annotation's properties: where it goes and its title.
func (a *Actions) fields(an Annotation) map[string]string {
	fields := map[string]string{}
	if an.File != "" {
		fields["file"] = a.RelPath(an.File)
		if an.Line > 0 {
			fields["line"] = strconv.Itoa(an.Line)
			if an.Column > 0 {
				fields["col"] = strconv.Itoa(an.Column)
			}
		}
	}
	title := an.Title
	if title == "" {
		title = "llmgate: " + an.Kind.String()
	}
	fields["title"] = oneLine(title)
	return fields
}
