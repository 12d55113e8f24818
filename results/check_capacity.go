package results

import "fmt"

// capacity checks a capacity search's kinds: what it varied, and each
// probe's status and reason to stop.
func (c *checker) capacity(cs *Capacity, a *CapacityAnswer) {
	if a != nil && !a.Vary.Valid() {
		c.fail(fmt.Sprintf("summary.capacity.vary %q is not %q or %q", a.Vary, VaryConcurrency, VaryRate))
	}
	if cs == nil {
		return
	}
	if !cs.Vary.Valid() {
		c.fail(fmt.Sprintf("capacity.vary %q is not %q or %q", cs.Vary, VaryConcurrency, VaryRate))
	}
	for i, p := range cs.Probes {
		if !p.Status.Valid() {
			c.fail(fmt.Sprintf("capacity.probes[%d]: unknown status %q", i, p.Status))
		}
		if p.Stopped != "" && !p.Stopped.Valid() {
			c.fail(fmt.Sprintf("capacity.probes[%d]: unknown stop %q (want %q or %q)", i, p.Stopped, ProbeCannotMeet, ProbeMetWithConfidence))
		}
	}
}
