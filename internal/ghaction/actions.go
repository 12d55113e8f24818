package ghaction

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/llmgate/llmgate/untrusted"
	githubactions "github.com/sethvargo/go-githubactions"
)

// ErrNoRunnerFile is returned when a runner file that a command writes to
// (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY) is not set in the environment.
var ErrNoRunnerFile = errors.New("the GitHub runner file is not set")

// Actions is llmgate's handle on the GitHub Actions runner: outputs, the step
// summary, annotations and log groups. A nil *Actions, or one made outside
// Actions, does nothing, so callers need no guards of their own.
type Actions struct {
	enabled bool
	getenv  func(string) string
	w       io.Writer
	gha     *githubactions.Action
	inGroup bool
	group   int // counts groups, so a stale end function does nothing
}

// New returns the runner handle for the environment getenv reads (nil means
// os.Getenv), writing workflow commands to w (nil means os.Stdout). It is
// enabled only when GITHUB_ACTIONS is "true".
func New(getenv func(string) string, w io.Writer) *Actions {
	if getenv == nil {
		getenv = os.Getenv
	}
	if w == nil {
		w = os.Stdout
	}
	return &Actions{
		enabled: getenv("GITHUB_ACTIONS") == "true",
		getenv:  getenv,
		w:       w,
		gha:     githubactions.New(githubactions.WithGetenv(githubactions.GetenvFunc(getenv)), githubactions.WithWriter(w)),
	}
}

// Enabled reports whether the process runs as a GitHub Actions step.
func (a *Actions) Enabled() bool { return a != nil && a.enabled }

// Getenv reads the environment a was made with; it works outside Actions too.
func (a *Actions) Getenv(key string) string {
	if a == nil || a.getenv == nil {
		return os.Getenv(key)
	}
	return a.getenv(key)
}

// fileCommand runs f, which writes to the runner file named by env, turning
// the library's panics into errors.
func (a *Actions) fileCommand(env, what string, f func()) (err error) {
	if !a.Enabled() {
		return nil
	}
	if a.getenv(env) == "" {
		return fmt.Errorf("%s: %w (%s is empty)", what, ErrNoRunnerFile, env)
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: %v", what, r)
		}
	}()
	f()
	return nil
}

// Outputs are the step outputs of `llmgate gate`.
type Outputs struct {
	// Verdict is the gate's overall verdict: pass, fail, inconclusive or error.
	Verdict string
	// Regressions counts regression rows of the comparison.
	Regressions int
	// FailedAsserts counts failed assert blocks over all runs.
	FailedAsserts int
	// ResultsPath is the results file written by the run.
	ResultsPath string
	// SummaryPath is the markdown report written by the run.
	SummaryPath string
}

// SetOutputs writes o as the step outputs verdict, regressions,
// failed-asserts, results-path and summary-path.
func (a *Actions) SetOutputs(o Outputs) error {
	pairs := [][2]string{
		{"verdict", o.Verdict},
		{"regressions", strconv.Itoa(o.Regressions)},
		{"failed-asserts", strconv.Itoa(o.FailedAsserts)},
		{"results-path", o.ResultsPath},
		{"summary-path", o.SummaryPath},
	}
	var errs []error
	for _, p := range pairs {
		if err := a.SetOutput(p[0], p[1]); err != nil {
			errs = append(errs, err)
			break // the same file failed: the others would too
		}
	}
	return errors.Join(errs...)
}

// SetOutput writes one step output to the file at GITHUB_OUTPUT, as a
// heredoc whose delimiter is drawn at random for this value (see
// outputDelimiter); a value that holds its delimiter is refused.
func (a *Actions) SetOutput(name, value string) error {
	if !a.Enabled() {
		return nil
	}
	path := a.getenv("GITHUB_OUTPUT")
	if path == "" {
		return fmt.Errorf("set output %s: %w (GITHUB_OUTPUT is empty)", name, ErrNoRunnerFile)
	}
	if err := appendOutput(path, name, value, random); err != nil {
		return fmt.Errorf("set output %s: %w", name, err)
	}
	return nil
}

// AppendSummary appends markdown to the step summary at GITHUB_STEP_SUMMARY,
// with secrets masked (untrusted.Mask).
func (a *Actions) AppendSummary(markdown string) error {
	markdown = untrusted.Mask(markdown)
	return a.fileCommand("GITHUB_STEP_SUMMARY", "append step summary", func() { a.gha.AddStepSummary(markdown) })
}

// command issues a workflow command on the log, turning a failed write into an error.
func (a *Actions) command(f func()) (err error) {
	if !a.Enabled() {
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("workflow command: %v", r)
		}
	}()
	f()
	return nil
}

// Group starts a collapsible log group titled title and returns the function
// that ends it. GitHub does not nest groups, so a group started inside
// another ends the outer one first.
func (a *Actions) Group(title string) (end func()) {
	if !a.Enabled() {
		return func() {}
	}
	if a.inGroup {
		_ = a.command(a.gha.EndGroup)
	}
	a.inGroup = true
	a.group++
	id := a.group
	_ = a.command(func() { a.gha.Group(oneLine(title)) })
	return func() {
		if !a.inGroup || a.group != id {
			return // already ended, or ended by a later group
		}
		a.inGroup = false
		_ = a.command(a.gha.EndGroup)
	}
}

// Warning issues a warning annotation with a title; it is shown on the run's page.
func (a *Actions) Warning(title, message string) {
	if !a.Enabled() {
		return
	}
	_ = a.command(func() { a.gha.WithFieldsMap(map[string]string{"title": title}).Warningf("%s", message) })
}

// Notice issues a notice annotation with a title.
func (a *Actions) Notice(title, message string) {
	if !a.Enabled() {
		return
	}
	_ = a.command(func() { a.gha.WithFieldsMap(map[string]string{"title": title}).Noticef("%s", message) })
}

// RelPath makes path relative to the workspace (GITHUB_WORKSPACE, else the
// working directory) with forward slashes, the form GitHub needs to place an
// annotation on a file. A path outside the workspace is returned cleaned.
func (a *Actions) RelPath(path string) string {
	if path == "" {
		return ""
	}
	root := a.Getenv("GITHUB_WORKSPACE")
	if root == "" {
		root, _ = os.Getwd()
	}
	abs, err := filepath.Abs(path)
	if err != nil || root == "" {
		return filepath.ToSlash(filepath.Clean(path))
	}
	if rootAbs, err := filepath.Abs(root); err == nil {
		// Resolve symlinks on both sides where possible (macOS /var vs /private/var).
		if r, err := filepath.EvalSymlinks(rootAbs); err == nil {
			rootAbs = r
		}
		if p, err := filepath.EvalSymlinks(abs); err == nil {
			abs = p
		}
		if rel, err := filepath.Rel(rootAbs, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(filepath.Clean(path))
}

// oneLine folds newlines so a title stays one log line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
