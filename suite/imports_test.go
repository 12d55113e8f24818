package suite

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImports checks that parsing a suite links no network or runtime code:
// the suite and the plan types it decodes into must not depend, even
// indirectly, on the load engine, the targets, the simulator, the runner or
// a container library; the plan types themselves import the standard
// library only.
func TestImports(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	forbidden := []string{
		"github.com/llmgate/llmgate/load",
		"github.com/llmgate/llmgate/target",
		"github.com/llmgate/llmgate/sim",
		"github.com/llmgate/llmgate/runner",
		"github.com/testcontainers/",
		"github.com/docker/",
	}
	const runspecPkg = "github.com/llmgate/llmgate/runspec"
	for _, pkg := range []string{"github.com/llmgate/llmgate/suite", runspecPkg} {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		deps := strings.Fields(string(out))
		if len(deps) == 0 || deps[len(deps)-1] != pkg {
			t.Fatalf("go list -deps %s listed %q; want the package itself last", pkg, deps)
		}
		for _, dep := range deps {
			if pkg == runspecPkg && dep != pkg && strings.Contains(strings.Split(dep, "/")[0], ".") {
				t.Errorf("%s depends on %s: it is plain data and imports the standard library only", pkg, dep)
			}
			for _, bad := range forbidden {
				if dep == bad || strings.HasPrefix(dep, bad+"/") || strings.HasSuffix(bad, "/") && strings.HasPrefix(dep, bad) {
					t.Errorf("%s depends on %s: parsing a suite would link it", pkg, dep)
				}
			}
		}
	}
}
