package report

import (
	"path/filepath"
	"testing"

	"github.com/llmgate/llmgate/internal/golden"
)

// checkGolden compares got with testdata/report/name (-update rewrites it).
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.Check(t, filepath.Join("..", "..", "testdata", "report", name), got)
}
