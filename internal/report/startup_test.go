package report

import (
	"strings"
	"testing"

	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/results"
)

// TestMarkdownStartup: runs driven by a server llmgate started show its
// start-up beside the baseline's, with the phases the log timed.
func TestMarkdownStartup(t *testing.T) {
	base, cur, _ := fixture()
	for i := range cur.Runs {
		if cur.Runs[i].Name == "chat" {
			cur.Runs[i].Summary.Startup = &results.Startup{Seconds: 84.2, Phases: []results.StartupPhase{{Name: results.PhaseWeights, Seconds: 21.5}, {Name: results.PhaseGraphs, Seconds: 8}}}
		}
	}
	for i := range base.Runs {
		if base.Runs[i].Name == "chat" {
			base.Runs[i].Summary.Startup = &results.Startup{Seconds: 60.1}
		}
	}
	md := Markdown(compare.Compare(base, cur, compare.DefaultConfig()), MarkdownOptions{Title: "gate"})
	for _, want := range []string{
		"| run | baseline start-up | start-up | weights | torch.compile | CUDA graphs |",
		"| chat | 60.1 s | 84.2 s | 21.5 s | - | 8.00 s |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	// Without start-up times there is no table.
	base, cur, _ = fixture()
	if md := Markdown(compare.Compare(base, cur, compare.DefaultConfig()), MarkdownOptions{Title: "gate"}); strings.Contains(md, "Start-up") {
		t.Error("a start-up table without start-up times")
	}
}

// TestRunTableStartup: the terminal's run table and the HTML page show
// each started server's start-up and its phases, and neither has the
// table without start-up times.
func TestRunTableStartup(t *testing.T) {
	base, cur, _ := fixture()
	for i := range cur.Runs {
		if cur.Runs[i].Name == "chat" {
			cur.Runs[i].Summary.Startup = &results.Startup{Seconds: 84.2, Phases: []results.StartupPhase{{Name: results.PhaseWeights, Seconds: 21.5}, {Name: results.PhaseGraphs, Seconds: 8}}}
		}
	}
	var b strings.Builder
	if err := RunTable(&b, cur); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"start-up (server container created to ready", "run   start-up  weights  torch.compile  CUDA graphs", "chat    84.2 s   21.5 s              -       8.00 s"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("run table lacks %q:\n%s", want, b.String())
		}
	}
	var page strings.Builder
	if err := HTML(&page, cur, base, compare.Compare(base, cur, compare.DefaultConfig())); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), "<h3>Start-up</h3>") || !strings.Contains(page.String(), "84.2 s") {
		t.Errorf("the page lacks the start-up table")
	}
	_, plain, _ := fixture()
	b.Reset()
	if err := RunTable(&b, plain); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "start-up") {
		t.Errorf("a start-up table without start-up times:\n%s", b.String())
	}
}
