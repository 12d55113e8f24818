package suite

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// Limits checked before a suite is parsed. The HCL parser and evaluator
// recurse once per nesting level and per operator, so a hostile file (100k
// nested parentheses, a 400 KB "1+1+..." expression) would exhaust the stack
// or memory, and garbage would yield megabytes of diagnostics. Real suites
// are a few kilobytes, nest a few levels and use a handful of operators per
// expression.
const (
	// MaxSuiteBytes is the largest suite file llmgate reads.
	MaxSuiteBytes = 256 << 10
	// MaxNesting is the deepest nesting of brackets, braces, parentheses,
	// strings and template interpolations.
	MaxNesting = 64
	// MaxOperators is the most operators in one expression.
	MaxOperators = 256
	// MaxDiagnostics is how many diagnostics are reported; the rest are
	// summed up in one more.
	MaxDiagnostics = 25
	// maxInvalidTokens is how many tokens the lexer may fail to read before
	// the file is judged not to be HCL at all.
	maxInvalidTokens = 10
)

// normalizeNewlines turns lone carriage returns (classic Mac line endings)
// into newlines, which HCL reads; CRLF is left alone. Byte offsets are
// unchanged.
func normalizeNewlines(src []byte) []byte {
	if bytes.IndexByte(src, '\r') < 0 {
		return src
	}
	out := bytes.Clone(src)
	for i, c := range out {
		if c == '\r' && (i+1 == len(out) || out[i+1] != '\n') {
			out[i] = '\n'
		}
	}
	return out
}

// checkLimits refuses, with one diagnostic at the place it noticed, a file
// too large, not text, nested too deep or with an expression too long to
// parse safely. It runs the lexer only, which is linear in the input.
func checkLimits(filename string, src []byte) hcl.Diagnostics {
	at := func(r hcl.Range, summary, detail string, a ...any) hcl.Diagnostics {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(detail, a...), Subject: r.Ptr()}}
	}
	start := hcl.Range{Filename: filename, Start: hcl.InitialPos, End: hcl.InitialPos}
	if len(src) > MaxSuiteBytes {
		return at(start, "Suite file too large",
			"The file is %d bytes; a suite may be at most %d KiB. Put large data in a dataset file and point the workload at it.", len(src), MaxSuiteBytes>>10)
	}
	if i := bytes.IndexByte(src, 0); i >= 0 {
		return at(posAt(filename, src, i), "Not a text file", "The file holds a NUL byte at offset %d; a suite is UTF-8 text.", i)
	}
	if !utf8.Valid(src) {
		i := firstInvalidUTF8(src)
		return at(posAt(filename, src, i), "Invalid UTF-8", "The file is not UTF-8 text: the byte at offset %d starts no valid character. Save the suite as UTF-8.", i)
	}
	tokens, _ := hclsyntax.LexConfig(src, filename, hcl.InitialPos)
	depth, invalid, ops := 0, 0, 0
	parens := 0 // ( and [ : newlines inside them do not end an expression
	for _, tok := range tokens {
		switch tok.Type {
		case hclsyntax.TokenOBrace, hclsyntax.TokenOBrack, hclsyntax.TokenOParen,
			hclsyntax.TokenTemplateInterp, hclsyntax.TokenTemplateControl, hclsyntax.TokenOQuote, hclsyntax.TokenOHeredoc:
			depth++
			if tok.Type == hclsyntax.TokenOParen || tok.Type == hclsyntax.TokenOBrack {
				parens++
			}
			if depth > MaxNesting {
				return at(tok.Range, "Nesting too deep",
					"Brackets, braces, parentheses and templates nest more than %d levels deep here; llmgate stops reading the file.", MaxNesting)
			}
		case hclsyntax.TokenCBrace, hclsyntax.TokenCBrack, hclsyntax.TokenCParen,
			hclsyntax.TokenTemplateSeqEnd, hclsyntax.TokenCQuote, hclsyntax.TokenCHeredoc:
			depth = max(depth-1, 0)
			if tok.Type == hclsyntax.TokenCParen || tok.Type == hclsyntax.TokenCBrack {
				parens = max(parens-1, 0)
			}
		case hclsyntax.TokenNewline, hclsyntax.TokenComma, hclsyntax.TokenEqual:
			if parens == 0 || tok.Type != hclsyntax.TokenNewline {
				ops = 0
			}
		case hclsyntax.TokenPlus, hclsyntax.TokenMinus, hclsyntax.TokenStar, hclsyntax.TokenSlash, hclsyntax.TokenPercent,
			hclsyntax.TokenAnd, hclsyntax.TokenOr, hclsyntax.TokenBang, hclsyntax.TokenEqualOp, hclsyntax.TokenNotEqual,
			hclsyntax.TokenLessThan, hclsyntax.TokenLessThanEq, hclsyntax.TokenGreaterThan, hclsyntax.TokenGreaterThanEq,
			hclsyntax.TokenQuestion, hclsyntax.TokenDot, hclsyntax.TokenEllipsis:
			ops++
			if ops > MaxOperators {
				return at(tok.Range, "Expression too long",
					"This expression has more than %d operators; llmgate stops reading the file. Split it, or compute the value outside the suite and pass it with --var.", MaxOperators)
			}
		case hclsyntax.TokenInvalid, hclsyntax.TokenBadUTF8, hclsyntax.TokenNil:
			invalid++
			if invalid > maxInvalidTokens {
				return at(tok.Range, "Not an HCL file",
					"More than %d characters here and before cannot start any HCL token; is this the suite file?", maxInvalidTokens)
			}
		}
	}
	return nil
}

// firstInvalidUTF8 is the offset of the first byte of src that starts no
// valid UTF-8 sequence.
func firstInvalidUTF8(src []byte) int {
	for i := 0; i < len(src); {
		r, size := utf8.DecodeRune(src[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return len(src)
}

// posAt is the range of the byte at offset i of src.
func posAt(filename string, src []byte, i int) hcl.Range {
	line, col := 1, 1
	for _, c := range src[:i] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	p := hcl.Pos{Line: line, Column: col, Byte: i}
	return hcl.Range{Filename: filename, Start: p, End: hcl.Pos{Line: line, Column: col + 1, Byte: i + 1}}
}

// capDiagnostics keeps the first MaxDiagnostics diagnostics and sums up the
// rest in one more, so that garbage cannot print megabytes.
func capDiagnostics(diags hcl.Diagnostics) hcl.Diagnostics {
	if len(diags) <= MaxDiagnostics {
		return diags
	}
	rest := diags[MaxDiagnostics:]
	errs := len(rest.Errs())
	out := append(hcl.Diagnostics(nil), diags[:MaxDiagnostics]...)
	return append(out, &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Too many problems",
		Detail:   fmt.Sprintf("…and %d more (%d of them errors) not shown. Fix the ones above first.", len(rest), errs),
	})
}
