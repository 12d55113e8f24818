package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func validateCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), args, &out, &errb)
	return exitCode(err, &errb), out.String(), errb.String()
}

func TestValidateGoodSuite(t *testing.T) {
	code, out, errOut := validateCLI(t, "validate", "--plan", "../../testdata/suites/good/design.hcl")
	if code != exitPass {
		t.Fatalf("exit %d, want 0; stderr:\n%s", code, errOut)
	}
	for _, want := range []string{
		"design.hcl: ok (4 scenario(s), 12 run(s))",
		"concurrency_sweep[concurrency=16]",
		"memory_sweep[gpu_memory_utilization=0.85]",
		"args --max-num-seqs 256 --gpu-memory-utilization 0.85",
		"closed loop, 8 concurrent, 200 requests, 20 warmup",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("--plan output lacks %q:\n%s", want, out)
		}
	}
}

func TestValidateBrokenSuitesExit2WithPosition(t *testing.T) {
	files, err := filepath.Glob("../../testdata/suites/broken/*.hcl")
	if err != nil || len(files) < 12 {
		t.Fatalf("want at least 12 broken suites, found %d (%v)", len(files), err)
	}
	pos := regexp.MustCompile(`(?m)^\.\./\.\./testdata/suites/broken/[a-z_]+\.hcl:\d+:\d+: Error: `)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			code, _, errOut := validateCLI(t, "validate", f)
			if code != exitUsage {
				t.Errorf("exit %d, want 2", code)
			}
			if !pos.MatchString(errOut) {
				t.Errorf("stderr has no file:line:col error line:\n%s", errOut)
			}
		})
	}
}

func TestValidateVarOverride(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.hcl")
	src := `
variable "concurrency" { default = 4 }
scenario "chat" {
  load {
    concurrency = var.concurrency
    requests    = 10
  }
}
`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := validateCLI(t, "validate", "--plan", "--var", "concurrency=12", path)
	if code != exitPass || !strings.Contains(out, "closed loop, 12 concurrent") {
		t.Fatalf("exit %d; stdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	code, _, errOut = validateCLI(t, "validate", "--var", "concurrency=many", path)
	if code != exitUsage || !strings.Contains(errOut, "Invalid value for variable") {
		t.Fatalf("non-numeric --var for a numeric variable: exit %d, stderr:\n%s", code, errOut)
	}
}

func TestValidateUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want int
	}{
		// No files is bad usage.
		{name: "no files", args: []string{"validate"}, want: exitUsage},
		// A missing file is reported, not a crash.
		{name: "missing file", args: []string{"validate", "does-not-exist.hcl"}, want: exitUsage},
		// A malformed --var is bad usage.
		{name: "bad var", args: []string{"validate", "--var", "novalue", "x.hcl"}, want: exitUsage},
		// -h prints help and exits 0.
		{name: "help", args: []string{"validate", "-h"}, want: exitPass},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if code, _, errOut := validateCLI(t, tt.args...); code != tt.want {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tt.want, errOut)
			}
		})
	}
}
