package ghaction

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/llmgate/llmgate/internal/ghactiontest"
)

// runnerEnv is a fake Actions step (ghactiontest.Runner) plus the log the
// workflow commands go to.
type runnerEnv struct {
	vars   map[string]string
	dir    string
	stdout bytes.Buffer
}

func newRunnerEnv(t *testing.T) *runnerEnv {
	r := ghactiontest.NewRunner(t)
	return &runnerEnv{vars: r.Vars, dir: r.Dir}
}

func (e *runnerEnv) getenv(k string) string { return e.vars[k] }

func (e *runnerEnv) actions() *Actions { return New(e.getenv, &e.stdout) }

func (e *runnerEnv) read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(e.dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
