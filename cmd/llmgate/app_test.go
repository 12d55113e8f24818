package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/llmgate/llmgate/results"
)

// TestTypoSuggestions checks a misspelt command or flag is named with the
// nearest one, in a few lines rather than the whole help.
func TestTypoSuggestions(t *testing.T) {
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"rnu"}, []string{`unknown command "rnu"; did you mean "run"?`}},
		{[]string{"help", "comapre"}, []string{`did you mean "compare"?`}},
		{[]string{"run", "--ouput", "x.json", "s.hcl"}, []string{"llmgate run: unknown flag --ouput", "Usage: llmgate run SUITE", "llmgate help run"}},
		{[]string{"gate", "--baselin", "b.json", "s.hcl"}, []string{"unknown flag --baselin; did you mean --baseline?"}},
		{[]string{"validate", "--zzzzzz"}, []string{"unknown flag --zzzzzz\n"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tt.args...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d", code, exitUsage)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if lines := strings.Count(stderr, "\n"); lines > 4 {
				t.Errorf("%d lines on stderr, want the error and a usage line:\n%s", lines, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout not empty:\n%s", stdout)
			}
		})
	}
}

// TestHelpListsEveryFlag checks 'help CMD' shows each flag of the command,
// written as the docs write them, on stdout with exit 0.
func TestHelpListsEveryFlag(t *testing.T) {
	for name := range commands {
		if name == "sim" {
			continue // vLLM's flags: listed by sim.FlagHelp
		}
		t.Run(name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, "help", name)
			if code != exitPass {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			if !strings.HasPrefix(stdout, "Usage: llmgate "+name) {
				t.Errorf("help does not start with the usage line:\n%s", stdout)
			}
			_, flags, _ := strings.Cut(stdout, "\nFlags:\n")
			for _, line := range strings.Split(flags, "\n") {
				if f, ok := strings.CutPrefix(line, "  -"); ok && !strings.HasPrefix(f, "-") && len(strings.Fields(f)[0]) > 1 {
					t.Errorf("flag written with one dash, the docs write --name: %q", line)
				}
			}
		})
	}
	_, stdout, _ := runCLI(t, "help", "gate")
	for _, f := range []string{"--baseline FILE", "--rerun", "--log-dir DIR", "--only NAME", "-o PATH", "--comment"} {
		if !strings.Contains(stdout, "\n  "+f) {
			t.Errorf("help gate lacks flag %q:\n%s", f, stdout)
		}
	}
}

// TestHelpAndVersion checks the command list names version, and help for a
// command that does not exist is bad usage.
func TestHelpAndVersion(t *testing.T) {
	code, stdout, _ := runCLI(t, "help")
	if code != exitPass || !strings.Contains(stdout, "\n  version ") {
		t.Errorf("help: exit %d, want 0 and version listed:\n%s", code, stdout)
	}
	if code, _, stderr := runCLI(t, "help", "nosuch"); code != exitUsage || !strings.Contains(stderr, `unknown command "nosuch"`) {
		t.Errorf("help nosuch: exit %d, want 2\n%s", code, stderr)
	}
	for _, args := range [][]string{{"version"}, {"--version"}} {
		if code, stdout, _ := runCLI(t, args...); code != exitPass || !strings.HasPrefix(stdout, "llmgate ") {
			t.Errorf("%v: exit %d, output %q", args, code, stdout)
		}
	}
	if code, _, _ := runCLI(t); code != exitUsage {
		t.Errorf("no arguments: exit %d, want 2", code)
	}
}

// TestReportKeepsExistingDefault checks report does not replace a
// report.html it was not told to write, and does when -o names it.
func TestReportKeepsExistingDefault(t *testing.T) {
	dir := t.TempDir()
	resPath := filepath.Join(dir, "results.json")
	f := &results.File{Version: results.SchemaVersion, Suite: results.SuiteInfo{Name: "s"}, Created: time.Unix(0, 0).UTC(), Runs: []results.Run{}}
	if err := results.WriteFile(resPath, f); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	if err := os.WriteFile("report.html", []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "report", resPath)
	if code != exitUsage || !strings.Contains(stderr, "report.html exists") {
		t.Errorf("exit %d, want 2 with a message\n%s", code, stderr)
	}
	if b, _ := os.ReadFile("report.html"); string(b) != "mine" {
		t.Errorf("report.html was replaced")
	}
	code, stdout, stderr := runCLI(t, "report", resPath, "-o", "report.html")
	if code != exitPass || !strings.Contains(stdout, "(0 runs)") {
		t.Errorf("with -o: exit %d\n%s%s", code, stdout, stderr)
	}
	if b, _ := os.ReadFile("report.html"); string(b) == "mine" {
		t.Errorf("report.html not written with -o")
	}
}

// TestUsageLinesNameNoOptionalFlag checks usage lines hold the positional
// arguments and required flags only: 'help CMD' lists every flag, so a
// usage line that listed some would be incomplete as soon as a flag came.
func TestUsageLinesNameNoOptionalFlag(t *testing.T) {
	for name, c := range commands {
		if strings.Contains(c.usage, "[-") {
			t.Errorf("%s: usage %q lists an optional flag; write [flags]", name, c.usage)
		}
	}
	if got := usageLine(commands["gate"]); got != "llmgate gate SUITE [flags]" {
		t.Errorf("gate usage %q", got)
	}
}

// TestExitThreeIsNotJudged checks exit code 3 has one name wherever the
// exit codes of a judging command are listed: "not judged", never
// "infrastructure" (the README, docs/running.md, and the help of llmgate,
// run and gate).
func TestExitThreeIsNotJudged(t *testing.T) {
	texts := map[string]string{}
	for _, args := range [][]string{{"help"}, {"help", "run"}, {"help", "gate"}} {
		_, stdout, _ := runCLI(t, args...)
		texts["llmgate "+strings.Join(args, " ")] = stdout
	}
	for _, f := range []string{"../../README.md", "../../docs/running.md"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts[f] = string(b)
	}
	for name, text := range texts {
		flat := strings.Join(strings.Fields(text), " ")
		if !regexp.MustCompile(`\b3\*?\*? (\| )?(something was )?not judged`).MatchString(flat) {
			t.Errorf("%s does not call exit code 3 \"not judged\"", name)
		}
		if strings.Contains(strings.ToLower(flat), "infrastructure") {
			t.Errorf("%s says \"infrastructure\"", name)
		}
	}
}
