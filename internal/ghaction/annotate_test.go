package ghaction

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

func TestWorst(t *testing.T) {
	reg := func(sev float64) Annotation {
		return Annotation{Kind: Regression, Severity: sev, Title: fmt.Sprintf("r%g", sev)}
	}
	fa := func(name string) Annotation { return Annotation{Kind: FailedAssert, Title: name} }
	tests := []struct {
		name     string
		in       []Annotation
		n        int
		want     []string
		wantLeft int
	}{
		// regressions rank by severity and before every failed assert
		{name: "regressions first, worst first", in: []Annotation{fa("a1"), reg(0.1), reg(0.5), fa("a2"), reg(0.3)}, n: 10,
			want: []string{"r0.5", "r0.3", "r0.1", "a1", "a2"}},
		// the cut drops the least severe regressions and then asserts
		{name: "cut at n", in: []Annotation{fa("a1"), reg(0.1), reg(0.5), reg(0.3)}, n: 2, want: []string{"r0.5", "r0.3"}, wantLeft: 2},
		// failed asserts keep their input (file) order
		{name: "asserts stable", in: []Annotation{fa("z"), fa("a"), fa("m")}, n: 10, want: []string{"z", "a", "m"}},
		// nothing in, nothing out
		{name: "empty", in: nil, n: 10, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, left := Worst(tt.in, tt.n)
			var titles []string
			for _, a := range got {
				titles = append(titles, a.Title)
			}
			if fmt.Sprint(titles) != fmt.Sprint(tt.want) || left != tt.wantLeft {
				t.Errorf("Worst = %v, %d left; want %v, %d left", titles, left, tt.want, tt.wantLeft)
			}
		})
	}
}

func TestAnnotateIssuesTenWorstWithLocations(t *testing.T) {
	e := newRunnerEnv(t)
	suite := filepath.Join(e.dir, "perf", "gate.hcl")
	var anns []Annotation
	for i := range 12 {
		anns = append(anns, Annotation{Kind: FailedAssert, File: suite, Line: 100 + i, Title: fmt.Sprintf("assert %d", i), Message: "ttft.p95 = 612.4, want < 500"})
	}
	anns = append(anns, Annotation{Kind: Regression, File: suite, Line: 40, Column: 3, Title: "regression: ttft.p95, chat", Message: "+25%: band 10%\nsecond line", Severity: 0.15})
	anns = append(anns, Annotation{Kind: Inconclusive, File: suite, Line: 41, Title: "inconclusive: e2el.p95 in chat", Message: "+9%"})
	n := e.actions().Annotate(anns)
	if n != MaxAnnotations {
		t.Fatalf("issued %d, want %d", n, MaxAnnotations)
	}
	lines := strings.Split(strings.TrimSpace(e.stdout.String()), "\n")
	if len(lines) != MaxAnnotations+2 {
		t.Fatalf("want %d errors, one notice and one warning, got:\n%s", MaxAnnotations, e.stdout.String())
	}
	if want := "::warning file=perf/gate.hcl,line=41,title=inconclusive%3A e2el.p95 in chat::+9%25"; lines[11] != want {
		t.Errorf("warning = %s, want %s", lines[11], want)
	}
	if want := "::error col=3,file=perf/gate.hcl,line=40,title=regression%3A ttft.p95%2C chat::+25%25: band 10%25%0Asecond line"; lines[0] != want {
		t.Errorf("first annotation =\n%s\nwant\n%s", lines[0], want)
	}
	if !strings.HasPrefix(lines[9], "::error file=perf/gate.hcl,line=108,") {
		t.Errorf("10th annotation = %s, want assert at line 108", lines[9])
	}
	if !strings.HasPrefix(lines[10], "::notice ") || !strings.Contains(lines[10], "3 more") {
		t.Errorf("last line = %s, want a notice counting the 3 left out", lines[10])
	}
}
