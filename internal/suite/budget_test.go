package suite

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/zclconf/go-cty/cty"
)

// The probe: setproduct(range(1024), range(1024), range(20)) took 6.2 GB
// and over 60 s in validate. It and its cousins are refused before they
// build anything: in well under a second and a few megabytes each.
func TestEvaluationIsBounded(t *testing.T) {
	for _, tt := range []struct{ expr, want string }{
		{`setproduct(range(1024), range(1024), range(20))`, "setproduct() would build 62914560 elements"},
		{`range(1000000000)`, "range() would build 1000000000 elements"},
		{`length([for a in range(1024) : [for b in range(1024) : a * b]])`, "values in all"},
		{`length(flatten([for a in range(300) : range(300)]))`, "more than"},
		{`format("%999999999d", 1)`, "format() would build"},
		{`formatlist("%.999999999f", [1])`, "formatlist() would build"},
		{`replace(format("%0100000d", 1), "0", format("%01000d", 1))`, "replace() would build"},
		{`regex_replace(format("%0100000d", 1), "0", "$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0$0")`, "regex_replace() would build"},
		// on a loaded machine under -race the time bound may come first
		{`length(join("", [for p in setproduct(range(50), range(100)) : format("%0100000d", p[0])]))`, "MiB of text in all|took more than"},
		{`indent(100000000, "a\nb")`, "indent() would build"},
	} {
		src := "variable \"v\" {\n  default = " + tt.expr + "\n}\nsimulator \"sim\" {}\nscenario \"chat\" {\n  target = simulator.sim\n  load {\n    concurrency = 1\n    requests    = 1\n  }\n}\n"
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		start := time.Now()
		_, diags := loadText(t, src, Options{})
		took := time.Since(start)
		runtime.ReadMemStats(&after)
		if !diags.HasErrors() || !containsAny(diags.Error(), strings.Split(tt.want, "|")) || !strings.Contains(diags.Error(), "Evaluation too large; This expression asks for too much: ") {
			t.Errorf("%s: %v, want an error with %q", tt.expr, diags, tt.want)
			continue
		}
		if d := diags.Errs()[0]; !strings.Contains(d.Error(), "suite.hcl:2,") {
			t.Errorf("%s: reported at %v, want line 2", tt.expr, d)
		}
		t.Logf("%-60.60s refused in %v, %d MiB allocated", tt.expr, took.Round(time.Millisecond), (after.TotalAlloc-before.TotalAlloc)>>20)
	}
}

// What a real suite builds is far inside the bounds.
func TestEvaluationBoundsLeaveRealSuitesAlone(t *testing.T) {
	src := `
variable "grid" {
  default = setproduct([1, 2, 4, 8, 16, 32, 64, 128], ["short", "long"], range(0, 100, 10))
}
variable "names" {
  default = join(",", [for p in setproduct(range(30), range(30)) : format("%d-%d", p[0], p[1])])
}
simulator "sim" {}
scenario "chat" {
  target = simulator.sim
  load {
    concurrency = length(var.grid)
    requests    = length(split(",", var.names))
  }
}
`
	s := mustLoad(t, src, Options{})
	if got := s.Scenarios[0].Runs[0].Load; got.Concurrency != 160 || got.Requests != 900 {
		t.Errorf("load = %+v", got)
	}
}

// The time bound holds at the next function call or guarded expression.
func TestEvaluationTimeBound(t *testing.T) {
	b := newEvalBudget()
	b.start()
	b.deadline = time.Now().Add(-time.Second)
	if err := b.charge(cty.StringVal("x")); err == nil || !strings.Contains(err.Error(), "took more than") {
		t.Errorf("charge past the deadline = %v", err)
	}
	b.stop()
	if err := b.charge(cty.StringVal("x")); err != nil {
		t.Errorf("after the load: %v", err)
	}
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
