package progress

import (
	"fmt"
	"io"

	"github.com/llmgate/llmgate/internal/progress/event"
)

// github wraps another renderer in GitHub Actions log groups: one
// collapsible "::group::Scenario NAME" per scenario.
type github struct {
	w     io.Writer
	inner event.Progress
	open  string // scenario whose group is open, "" when none
}

// NewGitHub wraps inner so that each scenario's lines, and the server start
// before them, sit in a collapsible group of the GitHub Actions log.
func NewGitHub(w io.Writer, inner event.Progress) event.Progress {
	return &github{w: w, inner: inner}
}

// Report opens and closes groups around inner's rendering of e.
func (g *github) Report(e event.Event) {
	switch e := e.(type) {
	case event.ServerStarting:
		g.enter(e.Scenario)
	case event.RunStarted:
		g.enter(e.Scenario)
	case event.PlanFinished:
		g.inner.Report(e)
		g.close()
		return
	}
	g.inner.Report(e)
}

func (g *github) enter(scenario string) {
	if scenario == g.open {
		return
	}
	g.close()
	fmt.Fprintf(g.w, "::group::Scenario %s\n", scenario)
	g.open = scenario
}

func (g *github) close() {
	if g.open != "" {
		fmt.Fprintln(g.w, "::endgroup::")
		g.open = ""
	}
}
