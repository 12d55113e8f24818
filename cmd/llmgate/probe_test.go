package main

import (
	"strings"
	"testing"

	"github.com/llmgate/llmgate/internal/fakeserver"
)

func TestProbeCommand(t *testing.T) {
	srv := fakeserver.Start(t, fakeserver.Ollama("tiny", 5))
	code, out, errOut := validateCLI(t, "probe", srv.URL+"/v1", "--model", "tiny", "--idle-wait", "0")
	if code != exitPass {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	for _, want := range []string{"models                   tiny:latest, context not said", "usage, completions       final, zeroed", "Without them llmgate does this:"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if code, out, _ := validateCLI(t, "probe", srv.URL, "--json", "--idle-wait", "0"); code != exitPass || !strings.Contains(out, `"model": "tiny:latest"`) {
		t.Errorf("--json: exit %d\n%s", code, out)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"probe", "http://127.0.0.1:1", "--idle-wait", "0"}, exitInfra, "could not be reached"},
		{[]string{"probe", "127.0.0.1:8000"}, exitUsage, "want an http:// or https:// URL"},
		{[]string{"probe", srv.URL, "--model", "other", "--idle-wait", "0"}, exitInfra, `does not serve model "other"`},
	} {
		code, _, errOut := validateCLI(t, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, errOut, tc.code, tc.want)
		}
	}
	code, out, _ = validateCLI(t, "help", "probe")
	if code != exitPass || !strings.Contains(out, "Usage: llmgate probe URL") || !strings.Contains(out, "--idle-wait") {
		t.Errorf("help probe: exit %d\n%s", code, out)
	}
}
