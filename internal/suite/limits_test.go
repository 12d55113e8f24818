package suite

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// TestHostileFilesFailFast feeds the loader what broke it: 100k nested
// parentheses (a stack overflow in the parser), random bytes (minutes of
// recovery and megabytes of diagnostics), a 400 KB "1+1+..." (641 MB), and
// a file full of garbage ASCII. Each must fail with one clear error, fast,
// and render in a few hundred bytes.
func TestHostileFilesFailFast(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 100<<10)
	for i := range random {
		random[i] = byte(rng.UintN(256))
	}
	garbage := make([]byte, 100<<10)
	const alphabet = "abc{}[]()=+\"\n #$%^&*!~`"
	for i := range garbage {
		garbage[i] = alphabet[rng.UintN(uint(len(alphabet)))]
	}
	scenario := func(expr string) []byte {
		return []byte("scenario \"a\" {\n  load {\n    concurrency = " + expr + "\n    requests = 1\n  }\n}\n")
	}
	cases := []struct {
		name, summary string
		src           []byte
	}{
		{"100k nested parens", "Nesting too deep", scenario(strings.Repeat("(", 100000) + "1" + strings.Repeat(")", 100000))},
		{"nested in 20k lines", "Nesting too deep", scenario(strings.Repeat("[\n", 20000) + "1" + strings.Repeat("]", 20000))},
		{"100 KB random bytes", "Not a text file", random},
		{"invalid UTF-8", "Invalid UTF-8", append(scenario("1"), 0xff, 0xfe)},
		{"100 KB of garbage text", "Not an HCL file", garbage},
		{"400 KB 1+1+...", "Suite file too large", scenario(strings.Repeat("1+", 200000) + "1")},
		{"100 KB 1+1+...", "Expression too long", scenario(strings.Repeat("1+", 50000) + "1")},
		{"1+ across lines in parens", "Expression too long", scenario("(" + strings.Repeat("1+\n", 1000) + "1)")},
		{"NUL bytes", "Not a text file", append(scenario("1"), 0, 0, 0)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			s, diags := loadSource("hostile.hcl", c.src, Options{Getenv: func(string) string { return "" }})
			took := time.Since(start)
			if len(diags) != 1 || diags[0].Summary != c.summary {
				t.Fatalf("diags = %v, want one %q", diags, c.summary)
			}
			var buf bytes.Buffer
			if err := WriteDiagnostics(&buf, s.Files, diags, false); err != nil {
				t.Fatal(err)
			}
			if buf.Len() > 2000 {
				t.Errorf("diagnostic renders in %d bytes:\n%.3000s", buf.Len(), buf.String())
			}
			// generous for a loaded two-core machine under -race; the old
			// parser took 49 s on the random bytes and overflowed on the parens
			if took > 10*time.Second {
				t.Errorf("took %v", took)
			}
		})
	}
}

// TestDiagnosticsCapped checks a file with hundreds of mistakes reports
// MaxDiagnostics of them and one line that sums up the rest.
func TestDiagnosticsCapped(t *testing.T) {
	var b strings.Builder
	for i := range 200 {
		b.WriteString("scenario \"s" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + "\" {\n  bogus_" + string(rune('a'+i%26)) + " = 1\n}\n")
	}
	_, diags := loadSource("many.hcl", []byte(b.String()), Options{})
	if len(diags) != MaxDiagnostics+1 {
		t.Fatalf("%d diagnostics, want %d", len(diags), MaxDiagnostics+1)
	}
	last := diags[len(diags)-1]
	if last.Summary != "Too many problems" || !strings.Contains(last.Detail, "more") {
		t.Errorf("last diagnostic = %q: %q", last.Summary, last.Detail)
	}
}

// TestCROnlyLineEndings checks a suite saved with classic Mac line endings
// (CR alone) loads like one with LF, with the same line numbers.
func TestCROnlyLineEndings(t *testing.T) {
	lf := "scenario \"a\" {\n  load {\n    concurrency = 2\n    requests = 4\n  }\n}\n"
	s, diags := loadSource("cr.hcl", []byte(strings.ReplaceAll(lf, "\n", "\r")), Options{})
	if diags.HasErrors() {
		t.Fatalf("CR-only file: %v", diags)
	}
	if len(s.Scenarios) != 1 {
		t.Errorf("%d scenarios", len(s.Scenarios))
	}
	_, diags = loadSource("cr.hcl", []byte(strings.ReplaceAll(strings.Replace(lf, "2", "0", 1), "\n", "\r")), Options{})
	if len(diags) == 0 || diags[0].Subject == nil || diags[0].Subject.Start.Line != 3 {
		t.Errorf("error in a CR-only file not placed on line 3: %v", diags)
	}
}
