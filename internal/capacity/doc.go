// Package capacity finds the largest load at which a scenario's SLO holds:
// Search brackets the answer by doubling from the minimum, bisects the
// bracket down to the asked resolution and repeats the probes at both of its
// ends, deciding each load by the majority of its probes; Decide tells,
// part-way through a probe, whether its SLO is already met (or can no
// longer be met) with confidence, so that the probe can stop early. Both are
// pure: the runner carries out the probes.
package capacity
