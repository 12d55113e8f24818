package runspec

import "testing"

func TestSourceString(t *testing.T) {
	s := Source{File: "perf/gate.hcl", Start: Pos{Line: 12, Column: 3}, End: Pos{Line: 14, Column: 2}}
	if got := s.String(); got != "perf/gate.hcl:12:3" {
		t.Fatalf("String() = %q", got)
	}
	if !(Source{}).IsZero() || (Source{}).String() != "" || s.IsZero() {
		t.Fatal("the zero Source must be nowhere, and only it")
	}
}
