package runspec

import "fmt"

// Pos is a place in a suite file: a 1-based line and column (in
// characters), as a diagnostic or an annotation points at it.
type Pos struct {
	Line, Column int
}

// Source is the part of a suite file a piece of the plan was declared in
// (a tolerance, an assert, a scenario), as plain data: what the judge,
// the reports and GitHub annotations point at, without linking the HCL
// parser. The zero Source is "nowhere" (the piece came from a default).
type Source struct {
	// File is the suite file's path as it was given.
	File string
	// Start and End bound the declaration; End is exclusive.
	Start, End Pos
}

// IsZero reports whether s points nowhere.
func (s Source) IsZero() bool { return s.File == "" }

// String is "file:line:col", the form editors and CI logs link; "" for
// the zero Source.
func (s Source) String() string {
	if s.IsZero() {
		return ""
	}
	return fmt.Sprintf("%s:%d:%d", s.File, s.Start.Line, s.Start.Column)
}
