package runspec

import "time"

// The default bounds of SelfCheck. A run outside them is marked invalid:
// the load generator, not the server, would be what the numbers measure.
const (
	// MaxScheduleLagP99 bounds the p99 of how late open-loop sends were
	// against plan. 50 ms is far above what a healthy client shows (well
	// under 1 ms) and far below the latencies a gate judges.
	MaxScheduleLagP99 = 50 * time.Millisecond
	// MinRateRatio is the least fraction of the planned rate an open loop
	// must achieve.
	MinRateRatio = 0.95
	// MinInFlightRatio is the least fraction of Concurrency a closed loop
	// must keep in flight on average (Little's law: throughput × latency).
	MinInFlightRatio = 0.9
	// MaxLengthError is how far a run's mean prompt or answer length may be
	// from what its workload asked for: beyond it, the run measured another
	// workload than the one it names.
	MaxLengthError = 0.05
)

// SelfCheck holds the bounds the load generator judges itself by. A zero
// field takes the default: MaxScheduleLagP99, MinRateRatio,
// MinInFlightRatio, MaxLengthError. A suite loosens them on a runner it knows to be busy, so
// that a slow client does not invalidate every run; the numbers of a run
// past the defaults then measure the client as much as the server.
type SelfCheck struct {
	// MaxScheduleLagP99 bounds the p99 of how late sends went out.
	MaxScheduleLagP99 time.Duration
	// MinRateRatio is the least fraction of the planned rate an open loop
	// must achieve.
	MinRateRatio float64
	// MinInFlightRatio is the least fraction of the concurrency a closed
	// loop must keep in flight on average.
	MinInFlightRatio float64
	// MaxLengthError is how far, as a fraction, the mean prompt and answer
	// lengths may be from what the workload asked for.
	MaxLengthError float64
}

// WithDefaults returns s with each zero field set to its default.
func (s SelfCheck) WithDefaults() SelfCheck {
	if s.MaxScheduleLagP99 <= 0 {
		s.MaxScheduleLagP99 = MaxScheduleLagP99
	}
	if s.MinRateRatio <= 0 {
		s.MinRateRatio = MinRateRatio
	}
	if s.MinInFlightRatio <= 0 {
		s.MinInFlightRatio = MinInFlightRatio
	}
	if s.MaxLengthError <= 0 {
		s.MaxLengthError = MaxLengthError
	}
	return s
}
