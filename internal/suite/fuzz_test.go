package suite

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoad feeds arbitrary bytes through the parser, validator and sweep
// expansion: whatever the input, Load must return diagnostics, not panic,
// and a suite without errors must plan and render.
func FuzzLoad(f *testing.F) {
	for _, pattern := range []string{"../../testdata/suites/*/*.hcl", "../../scenarios/*.hcl"} {
		files, _ := filepath.Glob(pattern)
		for _, p := range files {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
	}
	f.Add([]byte(`scenario "s" { sweep { a = [1, 2] b = ["x"] } load { concurrency = sweep.a requests = 1 } }`))
	f.Add([]byte(`scenario "s" { load { rate = 1e400 duration = "1h" } assert "a" { condition = ttft["p95"] < 1 } }`))
	f.Add([]byte(`variable "v" {} scenario "s" { load { concurrency = var.v[0] requests = 1 } }`))
	dir := f.TempDir()
	name := filepath.Join(dir, "fuzz.hcl")
	noEnv := func(string) string { return "" }
	f.Fuzz(func(t *testing.T, src []byte) {
		s, diags := loadSource(name, src, Options{Getenv: noEnv, Vars: map[string]string{"v": "1"}})
		if s == nil {
			t.Fatal("Load returned a nil suite")
		}
		var sink discard
		if err := WriteDiagnostics(&sink, s.Files, diags, false); err != nil {
			t.Fatal(err)
		}
		if diags.HasErrors() {
			return
		}
		p := s.Plan()
		if err := p.WriteText(&sink); err != nil {
			t.Fatal(err)
		}
		for _, r := range p.Runs() {
			r.EvalAsserts(nil)
		}
	})
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
