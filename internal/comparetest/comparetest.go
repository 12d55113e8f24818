// Package comparetest builds deterministic results files for the tests of
// compare, report and the CLI, so they need neither the load engine nor a
// server: per-request samples are drawn from seeded lognormal distributions
// and summaries are computed from them the way results defines.
package comparetest

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/llmgate/llmgate/results"
)

// RunSpec describes one synthetic run.
type RunSpec struct {
	// Name and Scenario name the run; Params holds sweep values.
	Name, Scenario string
	Params         map[string]string
	// Status defaults to results.StatusOK.
	Status results.Status
	// N is the number of measured requests (default 200).
	N int
	// TTFT, TPOT and E2EL are the medians of the lognormal per-request
	// distributions in ms; CV is their coefficient of variation (default 0.25).
	TTFT, TPOT, E2EL float64
	CV               float64
	// OutTokPerSec is the output-token throughput; ReqPerSec the request rate.
	OutTokPerSec, ReqPerSec float64
	// Failed requests on top of N completed ones.
	Failed int
	// Asserts are copied into the run.
	Asserts []results.AssertResult
	// NoSamples drops per-request samples, as an imported summary-only file has.
	NoSamples bool
	// Seed makes the draws reproducible.
	Seed uint64
}

// Epoch is the fixed time every synthetic file is stamped with.
var Epoch = time.Date(2026, 11, 2, 12, 0, 0, 0, time.UTC)

// File builds a results file with one run per spec.
func File(env results.Environment, specs ...RunSpec) *results.File {
	f := &results.File{
		Version:     results.SchemaVersion,
		Suite:       results.SuiteInfo{Name: "fixture", File: "fixture.hcl"},
		Environment: env,
		Created:     Epoch,
	}
	for _, s := range specs {
		f.Runs = append(f.Runs, MakeRun(s))
	}
	return f
}

// MakeRun builds one run from spec.
func MakeRun(s RunSpec) results.Run {
	if s.N == 0 {
		s.N = 200
	}
	if s.CV == 0 {
		s.CV = 0.25
	}
	if s.Status == "" {
		s.Status = results.StatusOK
	}
	rng := rand.New(rand.NewPCG(s.Seed, 0x5eed))
	smp := &results.Samples{
		TTFT: Lognormal(rng, s.N, s.TTFT, s.CV),
		TPOT: Lognormal(rng, s.N, s.TPOT, s.CV),
		E2EL: Lognormal(rng, s.N, s.E2EL, s.CV),
	}
	dur := float64(s.N) / nz(s.ReqPerSec, 1)
	sum := results.Summary{
		TTFT: Stats(smp.TTFT),
		TPOT: Stats(smp.TPOT),
		ITL:  Stats(smp.TPOT),
		E2EL: Stats(smp.E2EL),
		Throughput: results.Throughput{
			Requests:     s.ReqPerSec,
			OutputTokens: s.OutTokPerSec,
			TotalTokens:  s.OutTokPerSec * 1.5,
		},
		Goodput:         results.Goodput{Requests: s.ReqPerSec, Ratio: 1},
		Requests:        results.Requests{Completed: s.N, Failed: s.Failed},
		ErrorRate:       float64(s.Failed) / float64(s.N+s.Failed),
		Client:          results.Client{ScheduleLagP99: 0.4, AchievedRate: s.ReqPerSec},
		DurationSeconds: dur,
		InputTokens:     int64(s.N) * 512,
		OutputTokens:    int64(s.OutTokPerSec * dur),
	}
	r := results.Run{
		Name:     s.Name,
		Scenario: nzs(s.Scenario, s.Name),
		Params:   s.Params,
		Target:   "simulator.sim",
		Status:   s.Status,
		Started:  Epoch,
		Finished: Epoch.Add(time.Duration(dur * float64(time.Second))),
		Summary:  sum,
		Asserts:  s.Asserts,
		Samples:  smp,
	}
	if s.Status == results.StatusInvalid {
		r.InvalidReasons = []string{"achieved rate 7.1/s below planned 10/s"}
	}
	if s.NoSamples {
		r.Samples = nil
	}
	return r
}

// Lognormal draws n values with the given median and coefficient of variation.
func Lognormal(rng *rand.Rand, n int, median, cv float64) []float64 {
	sigma := math.Sqrt(math.Log1p(cv * cv))
	out := make([]float64, n)
	for i := range out {
		out[i] = median * math.Exp(sigma*rng.NormFloat64())
	}
	return out
}

// Stats computes summary statistics the way results defines them:
// percentiles with linear interpolation (numpy's default), population std.
func Stats(xs []float64) results.Stats { return results.ComputeStats(xs) }

// Quantile is numpy's linear-interpolation q-quantile (0..1) of sorted xs.
func Quantile(sorted []float64, q float64) float64 { return results.Percentile(sorted, 100*q) }

func nz(v, d float64) float64 {
	if v == 0 {
		return d
	}
	return v
}

func nzs(v, d string) string {
	if v == "" {
		return d
	}
	return v
}
