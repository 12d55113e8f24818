package scenarios

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmgate/llmgate/internal/runner"
	"github.com/llmgate/llmgate/internal/suite"
	"github.com/llmgate/llmgate/results"
)

// simulateScale is how far the catalog's request counts and durations are
// scaled down in TestCatalogRunsOnSimulator: a few requests a run, so the
// whole catalog runs in about a minute.
const simulateScale = "0.02"

// TestCatalogRunsOnSimulator runs every catalog suite end to end on the
// embedded simulator with --var simulate=true, scaled down with --var
// scale: each plan must run on simulators only, every run must complete
// and every assert must be judged. A run the load generator marked invalid
// (it could not keep its schedule on a busy two-core machine) still counts
// as run: its requests completed and its asserts were judged.
func TestCatalogRunsOnSimulator(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every catalog suite in real time on the simulator (about 3 minutes on two cores): full run only")
	}
	for _, c := range catalog {
		if c.file == "quickstart.hcl" {
			continue // on the simulator already: make run and the cmd tests run it
		}
		t.Run(c.file, func(t *testing.T) {
			t.Parallel()
			vars := map[string]string{"simulate": "true", "scale": simulateScale}
			if declares(t, c.file, "requests_per_user") {
				// as few requests as the scale gives: this test checks that
				// every suite runs, TestCatalogFigures what runs measure
				vars["requests_per_user"] = "0"
			}
			s, diags := suite.Load(c.file, suite.Options{Vars: vars, Getenv: func(string) string { return "" }})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			for _, r := range s.Plan().Runs() {
				if r.Target.Kind != "simulator" {
					t.Fatalf("run %s targets %s with simulate=true", r.Name, r.Target.Ref())
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			f, err := runner.Run(ctx, s.Runnable(), runner.Options{OutputPath: filepath.Join(t.TempDir(), "results.json")})
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			for _, r := range f.Runs {
				switch r.Status {
				case results.StatusOK:
				case results.StatusInvalid:
					t.Logf("run %s: the load generator marked it invalid: %s", r.Name, strings.Join(r.InvalidReasons, "; "))
				default:
					t.Errorf("run %s: status %s: %s", r.Name, r.Status, r.Error)
				}
				if r.Summary.Requests.Completed == 0 {
					t.Errorf("run %s: no request completed", r.Name)
				}
				for _, a := range r.Asserts {
					if !a.Passed && strings.Contains(a.Message.Raw(), "not measured") {
						t.Errorf("run %s: assert %s not judged: %s", r.Name, a.Name, a.Message)
					}
				}
			}
		})
	}
}

// declares reports whether the suite file declares the variable name.
func declares(t *testing.T, file, name string) bool {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Contains(string(src), `variable "`+name+`"`)
}
