package ghaction

import (
	"strings"
	"testing"
)

func TestMarker(t *testing.T) {
	if got := Marker("llama-8b-gate"); got != "<!-- llmgate:llama-8b-gate -->" {
		t.Errorf("Marker = %q", got)
	}
	if got := Marker("a--b\nc"); strings.Count(got, "--") != 2 || strings.Contains(got, "\n") {
		t.Errorf("Marker(a--b\\nc) = %q: must stay one well-formed HTML comment", got)
	}
}

func TestTruncateBody(t *testing.T) {
	long := func(prefix string, n int) string {
		var b strings.Builder
		b.WriteString(prefix)
		for b.Len() < n {
			b.WriteString("| row | 1.0 ms |\n")
		}
		return b.String()
	}
	tests := []struct {
		name     string
		body     string
		limit    int
		cut      bool
		contains []string
		absent   []string
	}{
		// a body within the limit is left alone
		{name: "fits", body: "short", limit: 100, cut: false, contains: []string{"short"}},
		// a long table is cut at a line boundary and says so
		{name: "table", body: long("# r\n", 5000), limit: 2000, cut: true, contains: []string{"| row | 1.0 ms |\n\n> [!NOTE]", "cut to"}},
		// a cut inside a code fence closes the fence
		{name: "fence", body: long("```mermaid\n", 5000), limit: 2000, cut: true, contains: []string{"\n```\n\n> [!NOTE]"}},
		// a cut inside <details> closes it
		{name: "details", body: long("<details><summary>all runs</summary>\n\n", 5000), limit: 2000, cut: true, contains: []string{"</details>\n"}},
		// a closed fence is not closed twice
		{name: "closed fence", body: long("```\nx\n```\n", 5000), limit: 2000, cut: true, absent: []string{"|\n```\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, cut := TruncateBody(tt.body, tt.limit)
			if cut != tt.cut {
				t.Errorf("cut = %v, want %v", cut, tt.cut)
			}
			if commentLen(got) > tt.limit {
				t.Errorf("length %d over the limit %d", commentLen(got), tt.limit)
			}
			for _, s := range tt.contains {
				if !strings.Contains(got, s) {
					t.Errorf("result lacks %q:\n%s", s, got[max(0, len(got)-400):])
				}
			}
			for _, s := range tt.absent {
				if strings.Contains(got, s) {
					t.Errorf("result has %q", s)
				}
			}
		})
	}
}

func TestCommentLenCountsAstralTwice(t *testing.T) {
	if got := commentLen("aé🚀"); got != 4 {
		t.Errorf("commentLen = %d, want 4 (a, é, and 🚀 as a surrogate pair)", got)
	}
}
