package runner

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/internal/backend"
)

// An endpoint given with --target that does not answer: the error names
// the URL as backend.NewEndpoint says it, once, without the runner's
// "URL: " before it (the runner once decided that by looking for the URL
// in the error's words, which missed a URL written with /v1).
func TestTargetURLErrorNamesItOnce(t *testing.T) {
	s := loadSuite(t, "tiny.hcl", nil)
	const url = "HTTP://127.0.0.1:1/v1" // as a user may write it: the scheme is read without case
	out := filepath.Join(t.TempDir(), "results.json")
	_, err := Run(context.Background(), s, Options{OutputPath: out, TargetURL: url, Progress: &recorder{}})
	if !errors.Is(err, backend.ErrUnavailable) {
		t.Fatalf("Run error = %v, want one wrapping backend.ErrUnavailable", err)
	}
	msg := err.Error()
	if strings.Contains(msg, url+": ") || !strings.Contains(msg, "endpoint HTTP://127.0.0.1:1 is not reachable") {
		t.Errorf("error %q, want the endpoint's own words without %q before them", msg, url+": ")
	}
}
