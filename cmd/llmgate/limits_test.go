package main

import (
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

// TestValidateWarnsUnknownVar checks validate, like run, warns about a
// --var that names no variable of the suite, and still passes.
func TestValidateWarnsUnknownVar(t *testing.T) {
	code, stdout, stderr := runCLI(t, "validate", "--var", "nosuch=1", "testdata/run/tiny.hcl")
	if code != exitPass || !strings.Contains(stderr, "Value for undeclared variable") || !strings.Contains(stderr, "nosuch") {
		t.Errorf("exit %d, want 0 with a warning\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}
