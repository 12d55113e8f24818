package ghaction

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOutsideActionsDoesNothing(t *testing.T) {
	// GITHUB_ACTIONS unset and no runner files: the library would panic; we must not.
	var stdout strings.Builder
	a := New(func(string) string { return "" }, &stdout)
	if a.Enabled() {
		t.Fatal("Enabled() = true outside Actions")
	}
	if err := a.SetOutputs(Outputs{Verdict: "pass"}); err != nil {
		t.Errorf("SetOutputs: %v", err)
	}
	if err := a.AppendSummary("# hi"); err != nil {
		t.Errorf("AppendSummary: %v", err)
	}
	a.Group("scenario chat")()
	a.Warning("w", "m")
	if n := a.Annotate([]Annotation{{Kind: FailedAssert, Message: "x"}}); n != 0 {
		t.Errorf("Annotate issued %d outside Actions", n)
	}
	if stdout.Len() != 0 {
		t.Errorf("wrote workflow commands outside Actions: %q", stdout.String())
	}
	var nilActions *Actions
	nilActions.Group("x")()
	if nilActions.Enabled() {
		t.Error("nil Actions is enabled")
	}
}

func TestMissingRunnerFilesAreErrors(t *testing.T) {
	// GITHUB_ACTIONS=true but GITHUB_OUTPUT and GITHUB_STEP_SUMMARY unset (an old runner, a local act): errors, not panics.
	a := New(func(k string) string {
		if k == "GITHUB_ACTIONS" {
			return "true"
		}
		return ""
	}, &strings.Builder{})
	if err := a.SetOutputs(Outputs{Verdict: "pass"}); !errors.Is(err, ErrNoRunnerFile) {
		t.Errorf("SetOutputs error = %v, want ErrNoRunnerFile", err)
	}
	if err := a.AppendSummary("x"); !errors.Is(err, ErrNoRunnerFile) {
		t.Errorf("AppendSummary error = %v, want ErrNoRunnerFile", err)
	}
}

func TestUnwritableRunnerFileIsAnError(t *testing.T) {
	// GITHUB_OUTPUT points into a directory that does not exist: the library panics, we return an error.
	e := newRunnerEnv(t)
	e.vars["GITHUB_OUTPUT"] = filepath.Join(e.dir, "missing", "output")
	if err := e.actions().SetOutput("verdict", "pass"); err == nil || !strings.Contains(err.Error(), "set output verdict") {
		t.Errorf("SetOutput error = %v, want one naming the output", err)
	}
}

func TestSetOutputsAndSummary(t *testing.T) {
	e := newRunnerEnv(t)
	a := e.actions()
	err := a.SetOutputs(Outputs{Verdict: "fail", Regressions: 2, FailedAsserts: 1, ResultsPath: "results.json", SummaryPath: "results.md"})
	if err != nil {
		t.Fatal(err)
	}
	out := e.read(t, "output")
	for _, want := range []string{"verdict<<", "\nfail\n", "regressions<<", "\n2\n", "failed-asserts<<", "\n1\n", "results-path<<", "\nresults.json\n", "summary-path<<", "\nresults.md\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("GITHUB_OUTPUT lacks %q:\n%s", want, out)
		}
	}
	if err := a.AppendSummary("## llmgate: pass"); err != nil {
		t.Fatal(err)
	}
	if err := a.AppendSummary("second"); err != nil {
		t.Fatal(err)
	}
	if got := e.read(t, "summary.md"); got != "## llmgate: pass\nsecond\n" {
		t.Errorf("summary = %q, want both appended", got)
	}
}

func TestGroupsDoNotNest(t *testing.T) {
	e := newRunnerEnv(t)
	a := e.actions()
	endA := a.Group("run chat\nsecond line")
	endB := a.Group("run sweep[concurrency=8]") // ends chat's group first
	endA()                                      // already ended: must not end B's group
	a.Notice("inside", "still in B")
	endB()
	endB()
	want := "::group::run chat second line\n::endgroup::\n::group::run sweep[concurrency=8]\n::notice title=inside::still in B\n::endgroup::\n"
	if got := e.stdout.String(); got != want {
		t.Errorf("log =\n%s\nwant\n%s", got, want)
	}
}

func TestRelPath(t *testing.T) {
	e := newRunnerEnv(t)
	a := e.actions()
	inside := filepath.Join(e.dir, "perf", "suite.hcl")
	if err := os.MkdirAll(filepath.Dir(inside), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := a.RelPath(inside); got != "perf/suite.hcl" {
		t.Errorf("RelPath(inside) = %q, want perf/suite.hcl", got)
	}
	if got := a.RelPath("/elsewhere/x.hcl"); got != "/elsewhere/x.hcl" {
		t.Errorf("RelPath(outside) = %q", got)
	}
}
