package runspec

import "time"

// Stage is one stage of a staged load (a load block's stage blocks): its
// own arrival process and its own end. The stages of a run follow one
// another; the run's warmup comes before the first.
type Stage struct {
	// Rate is the stage's mean arrival rate, requests/s (an open loop);
	// 0 for a closed loop of Concurrency users.
	Rate float64
	// Burstiness is the gamma shape of the stage's inter-arrival gaps
	// (0 constant, 1 Poisson).
	Burstiness float64
	// Concurrency is the closed loop's users, or the open loop's cap of
	// requests in flight (0: none).
	Concurrency int
	// Requests ends the stage after this many measured requests; 0 for no
	// count limit.
	Requests int
	// Duration ends the stage this long after its first send; 0 for no
	// time limit.
	Duration time.Duration
}

// OpenLoop reports whether the stage sends on a schedule (a rate).
func (s *Stage) OpenLoop() bool { return s.Rate > 0 }

// MixMember is one workload of a mix (a mix block's workload blocks):
// each request of the run draws its member by weight.
type MixMember struct {
	// Name is the block's label, which names the member's metrics
	// (mix.<name>.ttft.p95).
	Name string
	// Weight is the member's share of the requests, relative to the
	// other members' weights.
	Weight float64
	// Workload is what the member's requests ask for.
	Workload Workload
}
