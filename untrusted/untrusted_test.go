package untrusted

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestMaskerHidesKnownValuesAndTokenShapes(t *testing.T) {
	m := NewMasker()
	var registered []string
	m.OnAdd(func(s string) { registered = append(registered, s) })
	m.Add("s3cr3t-api-key", "abc", "s3cr3t-api-key", `pa"ss<word>`)
	if want := []string{"s3cr3t-api-key", `pa"ss<word>`}; strings.Join(registered, ",") != strings.Join(want, ",") {
		t.Errorf("OnAdd saw %q, want %q (short and repeated values skipped)", registered, want)
	}
	js, _ := json.Marshal(map[string]string{"e": `body pa"ss<word> end`})
	cases := []struct{ in, want string }{
		{"key=s3cr3t-api-key.", "key=***."},
		{"abc stays", "abc stays"},
		{"token hf_AbCdEfGhIjKlMnOpQrStUv was echoed", "token hf_*** was echoed"},
		{"sk-proj-0123456789abcdefghij", "sk-proj-***"},
		{"Authorization: Bearer eyJhbGciOi.J9.xyz", "Authorization: Bearer ***"},
		{"authorization: bearer abcdefgh12", "authorization: bearer ***"},
		{"ghs_0123456789abcdefABCDEF", "ghs_***"},
		{"a Bearer token is sent", "a Bearer token is sent"},
		{"task-0123456789abcdefghij", "task-0123456789abcdefghij"},
		{string(js), `{"e":"body *** end"}`},
	}
	for _, c := range cases {
		if got := m.Mask(c.in); got != c.want {
			t.Errorf("Mask(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	var buf bytes.Buffer
	w := m.Writer(&buf)
	n, err := w.Write([]byte("x s3cr3t-api-key y\n"))
	if err != nil || n != 19 || buf.String() != "x *** y\n" {
		t.Errorf("Writer wrote %q (n=%d, err=%v)", buf.String(), n, err)
	}
}

func TestUseInstallsProcessMasker(t *testing.T) {
	m := NewMasker()
	m.Add("installed-secret")
	restore := Use(m)
	if got := Mask("an installed-secret here"); got != "an *** here" {
		t.Errorf("Mask with installed masker = %q", got)
	}
	restore()
	if got := Mask("an installed-secret here"); got != "an installed-secret here" {
		t.Errorf("Mask after restore = %q", got)
	}
}

func TestTextNeutralisesWorkflowCommandsAndEscapes(t *testing.T) {
	cases := []struct{ in, want string }{
		{"plain text", "plain text"},
		{"oops\n::error file=a::injected", "oops\n\\::error file=a::injected"},
		{"x\r::add-mask::x", "x\n\\::add-mask::x"},
		{"  ::stop-commands::tok", "  \\::stop-commands::tok"},
		{"##[error]legacy", "\\##[error]legacy"},
		{"a::b stays", "a::b stays"},
		{"clear\x1b[2Jscreen\x1b[31mred\x1b[0m", "clearscreenred"},
		{"title\x1b]0;pwned\x07done", "titledone"},
		{"bell\x07nul\x00del\x7f", "bellnuldel"},
		{"bidi\u202eevil", "bidievil"},
		{"crlf\r\nline", "crlf\nline"},
		{"bad\xffutf8", "bad\ufffdutf8"},
		{"tab\tkept", "tab\tkept"},
	}
	for _, c := range cases {
		if got := Text(c.in); got != c.want {
			t.Errorf("Text(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := Line("a\n::error::x\tb"); got != `a \::error::x b` {
		t.Errorf("Line = %q", got)
	}
}

func TestMarkdownRendersLiterally(t *testing.T) {
	in := "500: </details><img src=x> @octocat ![i](http://e/x.png) <!-- llmgate:other --> `code` | *b* #12\n::error::x"
	got := Markdown(in)
	for _, bad := range []string{"<", ">", "@octocat", "![", "`code`", " | ", "\n", "\n::"} {
		if strings.Contains(got, bad) {
			t.Errorf("Markdown(...) = %q still holds %q", got, bad)
		}
	}
	if strings.Contains(got, MarkerPrefix) {
		t.Errorf("marker survived: %q", got)
	}
	if !strings.Contains(got, "@&#8203;octocat") || !strings.Contains(got, "&lt;/details&gt;") || !strings.Contains(got, `!\[i\]`) {
		t.Errorf("Markdown(...) = %q: mention or tag not escaped as expected", got)
	}
}

func TestCodeBlockCannotBeClosedFromInside(t *testing.T) {
	got := CodeBlock("line\n```\n</details>\n````x")
	if !strings.HasPrefix(got, "`````text\n") || !strings.HasSuffix(got, "\n`````\n") {
		t.Errorf("CodeBlock = %q: fence not longer than the content's", got)
	}
	if got := DefuseMarkers("a <!-- llmgate:x --> b"); strings.Contains(got, MarkerPrefix) {
		t.Errorf("DefuseMarkers kept the marker: %q", got)
	}
}

func TestCodeSpan(t *testing.T) {
	cases := map[string]string{
		"a.hcl:1:2":   "`a.hcl:1:2`",
		"x`y":         "``x`y``",
		"`start":      "`` `start ``",
		"a|b\n@c</x>": "`a\\|b @c</x>`",
	}
	for in, want := range cases {
		if got := Code(in); got != want {
			t.Errorf("Code(%q) = %q, want %q", in, got, want)
		}
	}
}

// Short makes the text one safe line and cuts it on a rune boundary.
func TestShort(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{"ok", 4, "ok"},
		{"two\nlines", 20, "two lines"},
		{"::error::x", 20, `\::error::x`},
		{"héllo", 2, "h…"}, // the cut falls inside é's two bytes: back to its start
		{"abcdef", 4, "abcd…"},
	} {
		if got := Short(tc.in, tc.max); got != tc.want {
			t.Errorf("Short(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
}

// The probes: autolinks and cross-references in server bodies survived
// (https://…, www.…, org/repo#1, #1, GH-2), and @team rendered as a
// mention. Each is broken with a zero-width space where GitHub's pattern
// needs a character; the text still reads the same.
func TestMarkdownBreaksReferencesAndAutolinks(t *testing.T) {
	in := "see https://evil.example/x and HTTP://E.example, www.evil.example, octo/gate#1, #12, gh-2, GH-3, @team, a@b.example, $x^2$"
	got := Markdown(in)
	for _, live := range []string{"https://", "HTTP://", "www.", "gate#1", " #12", "gh-2", "GH-3", "@team", "a@b", " $x"} {
		if strings.Contains(got, live) {
			t.Errorf("Markdown kept %q live: %s", live, got)
		}
	}
	if plain := strings.ReplaceAll(strings.ReplaceAll(got, "&#8203;", ""), `\$`, "$"); plain != in {
		t.Errorf("without the zero-width spaces and escapes it reads %q, want %q", plain, in)
	}
	// a code span cannot be broken out of, whatever backticks the text holds
	for _, s := range []string{"a`b", "``x``", "` <img src=x> `", "```", "x`"} {
		c := Code(s)
		delim := c[:strings.IndexFunc(c, func(r rune) bool { return r != '`' })]
		inner := strings.TrimSuffix(strings.TrimPrefix(c, delim), delim)
		if strings.Contains(inner, delim) {
			t.Errorf("Code(%q) = %q: the content holds the delimiter", s, c)
		}
	}
}
