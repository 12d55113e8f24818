package suite

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/llmgate/llmgate/internal/plan"
)

// TestABModeFor reads the ab setting the runner gets (Runnable) from the
// defaults block, the gate block's winning, and defaults by target kind.
func TestABModeFor(t *testing.T) {
	for _, c := range []struct {
		name, defaults, gate string
		want                 plan.ABMode
	}{
		{"none", "", "", plan.ABAlternate},
		{"defaults", `ab = "crossover"`, "", plan.ABCrossover},
		{"gate wins", `ab = "crossover"`, `ab = "together"`, plan.ABTogether},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := "defaults {\n  " + c.defaults + "\n}\n\nscenario \"chat\" {\n  load {\n    concurrency = 1\n    requests = 4\n  }\n}\n\ngate {\n  " + c.gate + "\n}\n"
			path := filepath.Join(t.TempDir(), "s.hcl")
			if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			s, diags := Load(path, Options{Getenv: func(string) string { return "" }})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			if got := s.Runnable().ABModeFor("server"); got != c.want {
				t.Errorf("server: %s, want %s", got, c.want)
			}
			if got := s.Runnable().ABModeFor("simulator"); got != plan.ABTogether {
				t.Errorf("simulator: %s, want together", got)
			}
		})
	}
}
