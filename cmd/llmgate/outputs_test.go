package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputNamingAnInputIsRefused checks that an output that would
// replace the suite, the baseline or a results file being read is bad
// usage (exit 2) and leaves the input as it was.
func TestOutputNamingAnInputIsRefused(t *testing.T) {
	gateNotActions(t)
	dir := t.TempDir()
	suiteSrc, err := os.ReadFile("testdata/run/tiny.hcl")
	if err != nil {
		t.Fatal(err)
	}
	suitePath := filepath.Join(dir, "s.hcl")
	if err := os.WriteFile(suitePath, suiteSrc, 0o644); err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(dir, "b.json")
	baseSrc := []byte(`{"version":"1.0","runs":[]}`)
	if err := os.WriteFile(base, baseSrc, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.hcl")
	if err := os.Symlink("s.hcl", link); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"run -o the suite", []string{"run", suitePath, "-o", suitePath}, "would overwrite the input"},
		{"run -o a link to the suite", []string{"run", suitePath, "-o", link}, "would overwrite the input"},
		{"gate -o the baseline", []string{"gate", suitePath, "--baseline", base, "-o", base}, "would overwrite the input"},
		{"gate --markdown the suite", []string{"gate", suitePath, "--baseline", "none", "--markdown", suitePath}, "would overwrite the input"},
		{"gate -o and --markdown alike", []string{"gate", suitePath, "--baseline", "none", "-o", filepath.Join(dir, "x"), "--markdown", filepath.Join(dir, "x")}, "both name"},
		{"compare --json the baseline", []string{"compare", base, base, "--json", base}, "would overwrite the input"},
		{"report -o the results", []string{"report", base, "-o", base}, "would overwrite the input"},
		{"run -o a directory", []string{"run", suitePath, "-o", dir}, "is a directory"},
		{"merge -o a shard", []string{"merge", base, "-o", base}, "would overwrite the input"},
		{"gate --results -o the results", []string{"gate", suitePath, "--baseline", "none", "--results", base, "-o", base}, "would overwrite the input"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, c.args...)
			if code != exitUsage || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, want 2 with %q\nstdout:\n%s\nstderr:\n%s", code, c.want, stdout, stderr)
			}
			if strings.Contains(stdout, "written to") {
				t.Errorf("claims a write:\n%s", stdout)
			}
			if b, _ := os.ReadFile(suitePath); string(b) != string(suiteSrc) {
				t.Errorf("the suite was changed")
			}
			if b, _ := os.ReadFile(base); string(b) != string(baseSrc) {
				t.Errorf("the baseline was changed")
			}
			if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Errorf("the link was replaced")
			}
		})
	}
}

// TestRunWritesThroughSymlink checks -o naming a symlink writes its
// target and keeps the link, and that the success line comes after the
// write.
func TestRunWritesThroughSymlink(t *testing.T) {
	gateNotActions(t)
	dir := t.TempDir()
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink("real.json", link); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "run", "testdata/run/tiny.hcl", "--only", "chat", "-o", link)
	if code != exitPass {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("link.json is no longer a link")
	}
	if _, err := os.Stat(filepath.Join(dir, "real.json")); err != nil {
		t.Errorf("the link's target was not written: %v", err)
	}
	if !strings.Contains(stdout, "Results written to "+link) {
		t.Errorf("no success line:\n%s", stdout)
	}
}
