package load

import (
	"fmt"
	"time"

	"github.com/llmgate/llmgate/results"
)

// MinRequestsForClosedLoopLag is the fewest measured requests for which a
// closed loop's schedule lag is judged. The other bounds a run is judged by
// are runspec.SelfCheck's.
const MinRequestsForClosedLoopLag = 100

// Health is the load generator's check of itself.
type Health struct {
	// PlannedRate is the rate the pacer's schedule asked for over the sends
	// of the measured phase, requests/s (open loop; 0 for a closed loop).
	PlannedRate float64
	// AchievedRate is the rate requests were actually sent at, requests/s.
	AchievedRate float64
	// ScheduleLagP99 is the p99 of send time minus planned time, ms.
	ScheduleLagP99 float64
	// Concurrency is the configured concurrency (users or cap).
	Concurrency int
	// MaxInFlight is the most requests seen in flight at once.
	MaxInFlight int
	// MeanInFlight is the time-averaged number of requests in flight while
	// requests were being sent (first to last send), by Little's law.
	MeanInFlight float64
	// MeanThinking is the time-averaged number of users holding their next
	// turn for its think time over the same window: busy, with no request
	// in flight. A closed loop's users are judged busy by the two together.
	MeanThinking float64
	// Problems lists each failed check with its figures; non-empty means the
	// run is invalid.
	Problems []string
	// Unchecked lists the checks the run was too short to apply, with why.
	Unchecked []string
}

// Analyze computes the run's analysis (summary, samples, per-request log
// and client figures, in one pass over its records) and judges the load
// generator's health from the client figures against cfg, the Config the
// run was made with.
func (res *Result) Analyze(cfg Config, opts results.SummarizeOptions) (*results.Analysis, Health) {
	a := results.Analyze(res.Records, opts)
	if len(cfg.Stages) > 0 {
		return a, stageHealth(cfg, a, res.MaxInFlight)
	}
	n := a.Summary.Requests.Completed + a.Summary.Requests.Failed
	return a, judgeHealth(cfg, a.Summary.Client, n, res.MaxInFlight)
}

// judgeHealth judges the client figures of a run of measured requests.
func judgeHealth(cfg Config, c results.Client, measured, maxInFlight int) Health {
	bounds := cfg.SelfCheck.WithDefaults()
	h := Health{Concurrency: cfg.Concurrency, MaxInFlight: maxInFlight,
		AchievedRate: c.AchievedRate, ScheduleLagP99: c.ScheduleLagP99, MeanInFlight: c.MeanInFlight, MeanThinking: c.MeanThinking}
	if cfg.OpenLoop() {
		h.PlannedRate = c.PlannedRate
	}
	if measured < 2 {
		h.Unchecked = append(h.Unchecked, fmt.Sprintf("send rate and requests in flight: not checked: %d measured request(s)", measured))
	}
	// A closed loop's user sends as soon as its previous request ended, so
	// its lag is the client's own delay: bounded like an open loop's once
	// the run is long enough that its p99 is not just its slowest send.
	lagBound := float64(bounds.MaxScheduleLagP99) / float64(time.Millisecond)
	switch {
	case !cfg.OpenLoop() && measured > 0 && measured < MinRequestsForClosedLoopLag:
		h.Unchecked = append(h.Unchecked, fmt.Sprintf("schedule lag: not checked: %d measured requests, fewer than %d (its p99 would be the slowest single send)", measured, MinRequestsForClosedLoopLag))
	case measured > 0 && h.ScheduleLagP99 > lagBound:
		h.Problems = append(h.Problems, fmt.Sprintf("schedule lag p99 %.1f ms is above the %v bound: sends went out late", h.ScheduleLagP99, bounds.MaxScheduleLagP99))
	}
	if cfg.OpenLoop() {
		if h.PlannedRate > 0 && h.AchievedRate < bounds.MinRateRatio*h.PlannedRate {
			p := fmt.Sprintf("achieved rate %.2f req/s is below %.0f%% of the planned %.2f req/s", h.AchievedRate, 100*bounds.MinRateRatio, h.PlannedRate)
			if cfg.Concurrency > 0 && maxInFlight >= cfg.Concurrency {
				p += fmt.Sprintf(" (the concurrency cap of %d was reached)", cfg.Concurrency)
			}
			h.Problems = append(h.Problems, p)
		}
	}
	if cfg.Concurrency > 0 && maxInFlight > cfg.Concurrency {
		h.Problems = append(h.Problems, fmt.Sprintf("%d requests were in flight at once, above the configured concurrency %d", maxInFlight, cfg.Concurrency))
	}
	if !cfg.OpenLoop() && cfg.Concurrency > 0 && measured >= 2 && measured <= results.LevelRequestsPerUser*cfg.Concurrency {
		h.Unchecked = append(h.Unchecked, fmt.Sprintf("mean in flight (Little's law): not checked: %d measured requests, at most %d × the concurrency %d", measured, results.LevelRequestsPerUser, cfg.Concurrency))
	}
	// a user holding its next turn for its think time is busy, as the
	// workload asks: it counts as in flight
	busy := h.MeanInFlight + h.MeanThinking
	if !cfg.OpenLoop() && cfg.Concurrency > 0 && measured > results.LevelRequestsPerUser*cfg.Concurrency && h.MeanInFlight > 0 &&
		busy < bounds.MinInFlightRatio*float64(cfg.Concurrency) {
		what := fmt.Sprintf("mean in flight %.1f", h.MeanInFlight)
		if h.MeanThinking > 0 {
			what = fmt.Sprintf("mean in flight %.1f plus %.1f users thinking (%.1f busy)", h.MeanInFlight, h.MeanThinking, busy)
		}
		h.Problems = append(h.Problems, fmt.Sprintf("%s is below %.0f%% of the configured concurrency %d: the client could not keep its users busy", what, 100*bounds.MinInFlightRatio, cfg.Concurrency))
	}
	return h
}
