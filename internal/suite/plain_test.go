package suite

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/internal/plan"
	"github.com/llmgate/llmgate/runspec"
)

// TestPlainData checks what the suite hands downstream as plain data: the
// gate's bands with the file:line:col of their tolerance blocks, where each
// scenario is declared, and diagnostics at their positions.
func TestPlainData(t *testing.T) {
	s := mustLoad(t, `
scenario "chat" {
  load {
    concurrency = 2
    requests    = 10
  }
}
gate {
  alpha = 0.01
  tolerance "ttft.p95" { max_regression = "10%" }
}
`, Options{})
	cfg := s.Gate.CompareConfig()
	file := filepath.Join(filepath.Dir(s.Filename), "suite.hcl")
	if cfg.Alpha != 0.01 || len(cfg.Tolerances) != 1 {
		t.Fatalf("config %+v, want alpha 0.01 and one band", cfg)
	}
	if tol := cfg.Tolerances[0]; tol.Metric != "ttft.p95" || !tol.Relative || tol.Amount != 0.10 || tol.Source.String() != file+":10:3" {
		t.Errorf("band %+v at %q, want ttft.p95 10%% at %s:10:3", tol, tol.Source, file)
	}
	if got := s.ScenarioSources()["chat"].String(); got != file+":2:1" {
		t.Errorf("scenario chat at %q, want %s:2:1", got, file)
	}
	if (*Suite)(nil).ScenarioSources() != nil {
		t.Error("a nil suite has no scenario sources")
	}
	def := (*plan.Gate)(nil).CompareConfig()
	if len(def.Tolerances) != len(compare.DefaultConfig().Tolerances) || !def.Tolerances[0].Source.IsZero() {
		t.Errorf("no gate: %+v, want the default bands, from nowhere", def)
	}

	_, diags := loadText(t, "scenario \"x\" {\n  bogus = 1\n}\n", Options{})
	plain := PlainDiagnostics(diags)
	if len(plain) != len(diags) || len(plain) == 0 {
		t.Fatalf("%d plain diagnostics for %d", len(plain), len(diags))
	}
	atBogus := false
	for i, d := range plain {
		h := diags[i]
		if d.Severity != runspec.Error || d.Summary != h.Summary || d.Detail != h.Detail || h.Subject == nil ||
			d.Source.File != h.Subject.Filename || d.Source.Start.Line != h.Subject.Start.Line || d.Source.Start.Column != h.Subject.Start.Column {
			t.Errorf("diagnostic %d: %+v, want %v", i, d, h)
		}
		atBogus = atBogus || d.Source.Start == runspec.Pos{Line: 2, Column: 3}
	}
	if !atBogus {
		t.Errorf("no diagnostic at line 2 column 3 (bogus): %+v", plain)
	}
}

// TestPlanIsPlainData checks the plan and the gate hold no HCL type, however
// deep: what the runner and the judge take from a suite is plain data (HCL
// stays in Suite and Scenario, for diagnostics, which the walk finds).
func TestPlanIsPlainData(t *testing.T) {
	for _, ty := range []reflect.Type{reflect.TypeFor[plan.Plan](), reflect.TypeFor[plan.Gate]()} {
		if bad := hclFields(ty); len(bad) > 0 {
			t.Errorf("%s holds HCL: %s", ty, strings.Join(bad, "; "))
		}
	}
	if bad := hclFields(reflect.TypeFor[Suite]()); len(bad) == 0 {
		t.Error("found no HCL in Suite, which holds the parsed files: the walk misses it")
	}
}

// hclFields lists the paths through ty, however deep (fields, elements,
// function arguments and results), that reach an HCL or go-cty type.
func hclFields(ty reflect.Type) []string {
	var bad []string
	seen := map[reflect.Type]bool{}
	var walk func(ty reflect.Type, path string)
	walk = func(ty reflect.Type, path string) {
		if seen[ty] {
			return
		}
		seen[ty] = true
		for _, dep := range hclDeps {
			if strings.HasPrefix(ty.PkgPath()+"/", dep) {
				bad = append(bad, path+" is "+ty.String())
				return
			}
		}
		switch ty.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array:
			walk(ty.Elem(), path+"[]")
		case reflect.Map:
			walk(ty.Key(), path+".key")
			walk(ty.Elem(), path+"[]")
		case reflect.Struct:
			for i := range ty.NumField() {
				walk(ty.Field(i).Type, path+"."+ty.Field(i).Name)
			}
		case reflect.Func:
			for i := range ty.NumIn() {
				walk(ty.In(i), path+".in")
			}
			for i := range ty.NumOut() {
				walk(ty.Out(i), path+".out")
			}
		}
	}
	walk(ty, ty.Name())
	return bad
}
