package results

import (
	"fmt"
	"time"
)

// GateVerdict is the verdict llmgate gate gave on a results file, recorded
// in the file the gate writes, so that a later llmgate report shows the
// gate's verdict rather than one of its own, and says so when it cannot
// reproduce it.
type GateVerdict struct {
	// Decision is the gate's verdict: one of GateDecisions (package
	// compare's Decision).
	Decision string `json:"decision" text:"name"`
	// Metrics counts the rows judged, Regressions and Inconclusive those
	// with that verdict, FailedAsserts the asserts that failed the gate.
	Metrics       int `json:"metrics"`
	Regressions   int `json:"regressions"`
	Inconclusive  int `json:"inconclusive"`
	FailedAsserts int `json:"failed_asserts"`
	// Baseline identifies the baseline judged against; nil when the gate
	// judged the asserts only.
	Baseline *BaselineRef `json:"baseline,omitempty"`
	// Rerun names the confirming rerun that decided some changes (the
	// file the gate wrote beside this one, or the file it was given);
	// "" when none did.
	Rerun string `json:"rerun,omitempty" text:"line"`
}

// BaselineRef identifies a baseline file by what it records of itself.
type BaselineRef struct {
	// Suite is the baseline's suite name; Created when it was written.
	Suite   string    `json:"suite,omitempty" text:"name"`
	Created time.Time `json:"created"`
}

// RefOf identifies f as a baseline.
func RefOf(f *File) *BaselineRef {
	return &BaselineRef{Suite: f.Suite.Name, Created: f.Created}
}

// Is reports whether f is the baseline ref names.
func (ref *BaselineRef) Is(f *File) bool {
	return ref != nil && f != nil && ref.Suite == f.Suite.Name && ref.Created.Equal(f.Created)
}

// GateDecisions are the decisions a GateVerdict may record.
var GateDecisions = []string{"fail", "error", "inconclusive", "pass"}

// gateVerdict checks a recorded verdict.
func (c *checker) gateVerdict(v *GateVerdict) {
	if v == nil {
		return
	}
	at := c.at
	defer func() { c.at = at }()
	c.at = "gate"
	known := false
	for _, d := range GateDecisions {
		known = known || v.Decision == d
	}
	if !known {
		c.fail(fmt.Sprintf("unknown decision %q (want fail, error, inconclusive or pass)", v.Decision))
	}
	for _, n := range []struct {
		field string
		v     int
	}{{"metrics", v.Metrics}, {"regressions", v.Regressions}, {"inconclusive", v.Inconclusive}, {"failed_asserts", v.FailedAsserts}} {
		c.count(n.field, int64(n.v))
	}
	if v.Regressions+v.Inconclusive > v.Metrics {
		c.fail(fmt.Sprintf("%d regressions and %d inconclusive in %d metrics", v.Regressions, v.Inconclusive, v.Metrics))
	}
}
