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

// TestValidateRefusesContextOverflow checks the default workload (1024 in,
// 128 out) on the tiny profile (context 1024) is refused at validate, at
// the scenario, and that run refuses it before starting anything; with
// --target (context unknown until the server answers) it plans.
func TestValidateRefusesContextOverflow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tiny.hcl")
	src := `suite "s" {}
simulator "sim" { profile = "tiny" }
scenario "defaults" {
  target = simulator.sim
  load {
    concurrency = 1
    requests    = 2
  }
}
scenario "fits" {
  target = simulator.sim
  workload {
    input_tokens  = 900
    output_tokens = 124
  }
  load {
    concurrency = 1
    requests    = 2
  }
}
`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := validateCLI(t, "validate", path)
	if code != exitUsage {
		t.Fatalf("exit %d, want 2; stderr:\n%s", code, errOut)
	}
	flat := strings.Join(strings.Fields(errOut), " ")
	for _, want := range []string{"tiny.hcl:3:1: Error: Workload does not fit the model's context",
		"Run defaults: its requests need up to 1152 tokens (input 1024 + output 128 tokens) but the model's context is 1024 tokens (the context of simulator profile tiny)"} {
		if !strings.Contains(flat, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if strings.Contains(errOut, "Run fits") {
		t.Errorf("900 + 124 = 1024 fits, but was flagged:\n%s", errOut)
	}
	code, _, errOut = validateCLI(t, "run", path, "-o", filepath.Join(t.TempDir(), "r.json"))
	if code != exitUsage || !strings.Contains(errOut, "does not fit") {
		t.Errorf("run: exit %d, want 2 before starting anything; stderr:\n%s", code, errOut)
	}
	code, out, errOut := validateCLI(t, "validate", "--plan", "--target", "http://127.0.0.1:11434/v1", "--model", "tiny", path)
	if code != exitPass || !strings.Contains(out, "endpoint.target (url http://127.0.0.1:11434/v1, model tiny)") {
		t.Errorf("--plan --target: exit %d\n%s\n%s", code, out, errOut)
	}
	if code, _, errOut := validateCLI(t, "validate", "--model", "tiny", path); code != exitUsage || !strings.Contains(errOut, "give --target URL too") {
		t.Errorf("--model without --target: exit %d, %s", code, errOut)
	}
}
