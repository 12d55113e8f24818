package load

import (
	"fmt"
	"sort"
	"time"

	"github.com/llmgate/llmgate/results"
)

// Health bounds. A run outside them is marked invalid: the load generator,
// not the server, would be what the numbers measure.
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
)

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
	// Problems lists each failed check with its figures; non-empty means the
	// run is invalid.
	Problems []string
}

// checkHealth computes Health from the measured records of a run.
func checkHealth(cfg Config, recs []results.Record, maxInFlight int) Health {
	h := Health{Concurrency: cfg.Concurrency, MaxInFlight: maxInFlight}
	var sent, planned, lag []float64
	var firstSent, lastSent time.Duration = -1, -1
	for i := range recs {
		r := &recs[i]
		if r.Warmup {
			continue
		}
		sent = append(sent, r.Sent.Seconds())
		planned = append(planned, r.Scheduled.Seconds())
		lag = append(lag, float64(r.Sent-r.Scheduled)/float64(time.Millisecond))
		if firstSent < 0 || r.Sent < firstSent {
			firstSent = r.Sent
		}
		if r.Sent > lastSent {
			lastSent = r.Sent
		}
	}
	sort.Float64s(lag)
	h.ScheduleLagP99 = results.Percentile(lag, 99)
	if n := len(sent); n > 1 {
		sort.Float64s(sent)
		sort.Float64s(planned)
		if span := sent[n-1] - sent[0]; span > 0 {
			h.AchievedRate = float64(n-1) / span
		}
		if span := planned[n-1] - planned[0]; span > 0 && cfg.Rate > 0 {
			h.PlannedRate = float64(n-1) / span
		}
	}
	if lastSent > firstSent {
		var busy time.Duration
		for i := range recs {
			r := &recs[i]
			if r.Warmup {
				continue
			}
			from, to := max(r.Sent, firstSent), min(r.Finished, lastSent)
			if to > from {
				busy += to - from
			}
		}
		h.MeanInFlight = float64(busy) / float64(lastSent-firstSent)
	}

	if cfg.Rate > 0 {
		if h.PlannedRate > 0 && h.AchievedRate < MinRateRatio*h.PlannedRate {
			p := fmt.Sprintf("achieved rate %.2f req/s is below %.0f%% of the planned %.2f req/s", h.AchievedRate, 100*MinRateRatio, h.PlannedRate)
			if cfg.Concurrency > 0 && maxInFlight >= cfg.Concurrency {
				p += fmt.Sprintf(" (the concurrency cap of %d was reached)", cfg.Concurrency)
			}
			h.Problems = append(h.Problems, p)
		}
		if h.ScheduleLagP99 > float64(MaxScheduleLagP99)/float64(time.Millisecond) {
			h.Problems = append(h.Problems, fmt.Sprintf("schedule lag p99 %.1f ms is above the %v bound: sends went out late", h.ScheduleLagP99, MaxScheduleLagP99))
		}
	}
	if cfg.Concurrency > 0 && maxInFlight > cfg.Concurrency {
		h.Problems = append(h.Problems, fmt.Sprintf("%d requests were in flight at once, above the configured concurrency %d", maxInFlight, cfg.Concurrency))
	}
	if cfg.Rate == 0 && cfg.Concurrency > 0 && len(sent) > 2*cfg.Concurrency && h.MeanInFlight > 0 &&
		h.MeanInFlight < MinInFlightRatio*float64(cfg.Concurrency) {
		h.Problems = append(h.Problems, fmt.Sprintf("mean in flight %.1f is below %.0f%% of the configured concurrency %d: the client could not keep its users busy", h.MeanInFlight, 100*MinInFlightRatio, cfg.Concurrency))
	}
	return h
}
