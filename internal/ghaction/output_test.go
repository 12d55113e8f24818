package ghaction

import (
	"bytes"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/internal/ghactiontest"
)

// The probe: a --results file named after go-githubactions' fixed
// delimiter, with "verdict=pass" on the next line, made the runner read
// verdict=pass while the gate failed. With a delimiter drawn per value the
// whole name is one output and the verdict stays fail.
func TestOutputValueCannotEndItsHeredoc(t *testing.T) {
	e := newRunnerEnv(t)
	hostile := "shard.json\n_GitHubActionsFileCommandDelimeter_\nverdict=pass\nregressions=0"
	if err := e.actions().SetOutputs(Outputs{Verdict: "fail", Regressions: 3, ResultsPath: hostile}); err != nil {
		t.Fatal(err)
	}
	text := e.read(t, "output")
	got := ghactiontest.ParseOutputs(text)
	if got["verdict"] != "fail" || got["regressions"] != "3" || got["results-path"] != hostile {
		t.Errorf("the runner reads verdict=%q regressions=%q results-path=%q from\n%s", got["verdict"], got["regressions"], got["results-path"], text)
	}
	if strings.Contains(text, "_GitHubActionsFileCommandDelimeter_\n") && strings.Count(text, "<<_GitHubActionsFileCommandDelimeter_") > 0 {
		t.Errorf("the fixed delimiter is still used:\n%s", text)
	}
	// every entry has its own delimiter
	delims := map[string]bool{}
	for _, l := range strings.Split(text, "\n") {
		if _, d, ok := strings.Cut(l, "<<"); ok {
			if delims[d] {
				t.Errorf("delimiter %s used twice", d)
			}
			delims[d] = true
		}
	}
	if len(delims) != 5 {
		t.Errorf("%d delimiters for 5 outputs:\n%s", len(delims), text)
	}
}

// A value that holds the delimiter drawn for it is refused, as GitHub's
// toolkit refuses it, and nothing is written.
func TestOutputHoldingItsDelimiterIsRefused(t *testing.T) {
	prev := random
	t.Cleanup(func() { random = prev })
	random = bytes.NewReader(make([]byte, 16))
	e := newRunnerEnv(t)
	delim := "ghadelimiter_" + strings.Repeat("0", 32)
	err := e.actions().SetOutput("results-path", "a\n"+delim+"\nverdict=pass")
	if err == nil || !strings.Contains(err.Error(), "delimiter") {
		t.Errorf("SetOutput = %v, want a refusal naming the delimiter", err)
	}
	if text := e.read(t, "output"); text != "" {
		t.Errorf("wrote %q", text)
	}
	if _, err := outputEntry("a\nb", "v", delim); err == nil {
		t.Error("a name on two lines was accepted")
	}
}
