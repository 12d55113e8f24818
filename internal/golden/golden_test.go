package golden

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, a ...any) {
	r.errors = append(r.errors, format)
}

// TestCheck checks a match passes, a difference is reported with a diff,
// and -update writes the file.
func TestCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "x.golden")
	*update = true
	Check(t, path, "one\n")
	*update = false
	if b, err := os.ReadFile(path); err != nil || string(b) != "one\n" {
		t.Fatalf("-update wrote %q, %v", b, err)
	}
	r := &recorder{TB: t}
	Check(r, path, "one\n")
	if len(r.errors) != 0 {
		t.Errorf("equal output reported: %v", r.errors)
	}
	Check(r, path, "two\n")
	if len(r.errors) != 1 || !strings.Contains(r.errors[0], "differs") {
		t.Errorf("a difference gave %v, want one error", r.errors)
	}
}
