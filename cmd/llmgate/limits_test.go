package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestConcurrencyBeyondFileLimit checks a concurrency the process cannot
// open connections for is refused by validate and run (exit 2, before
// anything starts), and that run raises a low soft limit when the hard
// limit allows.
func TestConcurrencyBeyondFileLimit(t *testing.T) {
	gateNotActions(t)
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Skipf("getrlimit: %v", err)
	}
	tooMany := strconv.FormatUint(lim.Max+1, 10)
	for _, cmd := range []string{"validate", "run"} {
		code, stdout, stderr := runCLI(t, cmd, "testdata/limits/concurrency.hcl", "--var", "n="+tooMany, "-o", t.TempDir()+"/r.json")
		if cmd == "validate" {
			code, stdout, stderr = runCLI(t, cmd, "testdata/limits/concurrency.hcl", "--var", "n="+tooMany)
		}
		if code != exitUsage || !strings.Contains(stderr, "open files") {
			t.Errorf("%s: exit %d, want 2 with the file limit named\nstdout:\n%s\nstderr:\n%s", cmd, code, stdout, stderr)
		}
	}

	// A soft limit below what 200 users need, a hard limit above: run raises it.
	if lim.Max < 1024 {
		t.Skipf("hard limit %d too low to test raising", lim.Max)
	}
	low := lim
	low.Cur = 128
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Skipf("setrlimit: %v", err)
	}
	t.Cleanup(func() { syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim) })
	code, stdout, stderr := runCLI(t, "run", "testdata/limits/concurrency.hcl", "--var", "n=200", "-o", t.TempDir()+"/r.json")
	if code != exitPass {
		t.Errorf("run with 200 users and a soft limit of 128: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	var now syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &now); err != nil || now.Cur < 200 {
		t.Errorf("soft limit now %d, want it raised to at least 200", now.Cur)
	}
}

// TestUnknownVarIsUsageError checks validate, run and gate refuse a --var
// that names no variable of the suite (a typo would run, and gate, the
// default), exit 2 with the declared name it is a typo of, before anything
// is started or written.
func TestUnknownVarIsUsageError(t *testing.T) {
	for _, cmd := range []string{"validate", "run", "gate"} {
		out := filepath.Join(t.TempDir(), "r.json")
		args := []string{cmd, "testdata/run/tiny.hcl", "--var", "ttft_limt=0"}
		if cmd != "validate" {
			args = append(args, "-o", out)
		}
		code, stdout, stderr := runCLI(t, args...)
		flat := strings.Join(strings.Fields(stderr), " ") // the detail is wrapped
		if code != exitUsage || !strings.Contains(flat, "Error: Value for undeclared variable") || !strings.Contains(flat, `Did you mean "ttft_limit"?`) {
			t.Errorf("%s: exit %d, want 2 with the suggestion\nstdout:\n%s\nstderr:\n%s", cmd, code, stdout, stderr)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%s wrote %s (%v) though the suite was refused", cmd, out, err)
		}
	}
}
