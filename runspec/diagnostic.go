package runspec

// Severity is how bad a Diagnostic is.
type Severity int

const (
	// Error stops the suite from loading.
	Error Severity = iota + 1
	// Warning is printed; the suite still loads.
	Warning
)

// Diagnostic is one problem found in a suite file, as plain data: what the
// step summary and the GitHub annotations of a suite that did not load are
// made from, without linking the HCL parser (suite converts its own).
type Diagnostic struct {
	Severity Severity
	// Summary is the problem in a few words; Detail says more ("" when
	// there is nothing more to say).
	Summary, Detail string
	// Source is where the problem is; zero when it has no place.
	Source Source
}
