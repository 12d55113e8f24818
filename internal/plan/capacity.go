package plan

import (
	"fmt"

	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
)

// Capacity is a scenario's capacity search: vary one load knob between Min
// and Max and find the largest value at which SLO holds.
type Capacity struct {
	// Vary is results.VaryConcurrency or results.VaryRate.
	Vary results.Vary
	// Min and Max bound the search.
	Min, Max float64
	// Step is the resolution the search stops at: the bracket [pass, fail)
	// is narrowed until it is at most max(Step, 10% of pass) wide. 1 for
	// concurrency unless set; 0 (10% only) for rate unless set.
	Step float64
	// Repeats is how many probes each end of the final bracket needs; a
	// load passes by majority of its probes. Default 2.
	Repeats int
	// SLO is the condition each probe must meet, over the metric namespace.
	SLO *Assert
	// DeclRange is the block's header in the source.
	DeclRange runspec.Source
}

// MinRequestsPerUser is the fewest measured requests a concurrency probe
// sends per user: with fewer, some users never send and the probe measures
// a lower load than it names.
const MinRequestsPerUser = 2

// ProbeRun returns a copy of r that runs at load v of its capacity search:
// concurrency or rate set, the search itself removed, named after the
// load. A concurrency probe sends at least MinRequestsPerUser requests per
// user when the load block asks for a count.
func (r *Run) ProbeRun(v float64) *Run {
	c := *r
	c.Capacity = nil
	c.Load = r.Load
	switch r.Capacity.Vary {
	case results.VaryConcurrency:
		c.Load.Concurrency = int(v)
		if c.Load.Requests > 0 {
			c.Load.Requests = max(c.Load.Requests, MinRequestsPerUser*int(v))
		}
	case results.VaryRate:
		c.Load.Rate = v
	}
	c.Name = fmt.Sprintf("%s[%s=%s]", r.Name, r.Capacity.Vary, FormatNumber(v))
	return &c
}
