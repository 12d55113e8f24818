// Package golden compares test output with golden files under testdata,
// and rewrites them when tests run with -update. Every package's golden
// tests use it; -update is a flag of those packages' tests only (go test
// ./... -update fails in the others), so name them:
//
//	go test ./cmd/llmgate ./internal/compare ./internal/progress ./internal/report ./internal/sim ./internal/suite -update
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files with what the tests produce")

// Updating reports whether the tests run with -update.
func Updating() bool { return *update }

// Check compares got with the golden file at path, reporting a diff as a
// test error; under -update it writes got to path instead (creating its
// directory).
func Check(t testing.TB, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden file (run the test with -update to create it): %v", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("output differs from %s (-want +got):\n%s", path, diff)
	}
}
