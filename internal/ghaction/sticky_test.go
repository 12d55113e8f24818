package ghaction

import (
	"strings"
	"testing"
)

// The probes: suite "perf --->" shared a comment with suite "perf" and its
// marker ended the HTML comment early (so "perf ---><img src=…>" rendered
// an image); "a-b" and "a--b" shared one too. Every name now has a marker of
// its own that stays one inert HTML comment.
func TestMarkerIsInjectiveAndInert(t *testing.T) {
	if got := Marker("llama-8b-gate"); got != "<!-- llmgate:llama-8b-gate -->" {
		t.Errorf("Marker = %q: a plain name reads as itself, as before", got)
	}
	names := []string{"perf", "perf --->", "perf ---><img src=x onerror=alert(1)>", "perf -", "perf-", "perf--", "perf%2D", "perf%2d",
		"a-b", "a--b", "a---b", "a-%2Db", "a b", "a%20b", "a\nb", "a\rb", "a\tb", "", "-", "--", "->", "-->", "--!>", "<!--", "é", "\xff", "a.b", "a_b", "A-B"}
	seen := map[string]string{}
	for _, n := range names {
		m := Marker(n)
		if prev, dup := seen[m]; dup {
			t.Errorf("Marker(%q) = Marker(%q) = %q", n, prev, m)
		}
		seen[m] = n
		body, ok := strings.CutPrefix(m, "<!--")
		body, ok2 := strings.CutSuffix(body, "-->")
		if !ok || !ok2 || strings.Contains(body, "--") || strings.ContainsAny(body, "<>\n\r!") || strings.HasSuffix(body, "-") {
			t.Errorf("Marker(%q) = %q is not one inert HTML comment", n, m)
		}
	}
}

// A comment written before markers were injective is found and edited
// (getting the new marker) when the old form can only be the suite's.
func TestLegacyMarker(t *testing.T) {
	for _, tt := range []struct{ suite, want string }{
		{"llama-8b-gate", ""}, // the same marker both ways
		{"my suite", "<!-- llmgate:my suite -->"},
		{"a--b", ""}, // the old marker folded "--": it may be a-b's
		{"a\nb", ""}, // the old one joined lines
	} {
		if got := legacyMarker(tt.suite); got != tt.want {
			t.Errorf("legacyMarker(%q) = %q, want %q", tt.suite, got, tt.want)
		}
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
		// the probe: a four-backtick fence was closed with three, so the
		// note landed inside the code block; it is closed with its own run
		{name: "long fence", body: long("````text\n```\n", 5000), limit: 2000, cut: true, contains: []string{"\n````\n\n> [!NOTE]"}},
		{name: "tilde fence", body: long("~~~~~\n", 5000), limit: 2000, cut: true, contains: []string{"\n~~~~~\n\n> [!NOTE]"}},
		// a shorter run or one with text after it does not close a fence
		{name: "shorter run inside", body: long("`````\n````\n```` x\n", 5000), limit: 2000, cut: true, contains: []string{"\n`````\n\n> [!NOTE]"}},
		// backticks in a backtick fence's info string make no fence; four blanks make code, not a fence
		{name: "no fence", body: long("```a`b\n    ```\n", 5000), limit: 2000, cut: true, absent: []string{"|\n```\n"}},
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
