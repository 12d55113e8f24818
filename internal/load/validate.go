package load

import (
	"errors"
	"fmt"
	"math"

	"github.com/llmgate/llmgate/runspec"
)

// Validate reports every problem that makes cfg unusable, joined.
func (cfg Config) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if cfg.BaseURL == "" {
		bad("load: no base URL")
	}
	if cfg.Concurrency < 0 {
		bad("load: concurrency must not be negative, got %d", cfg.Concurrency)
	}
	if cfg.Rate < 0 || math.IsNaN(cfg.Rate) {
		bad("load: rate must not be negative, got %g", cfg.Rate)
	}
	traced := cfg.Workload.Kind == runspec.WorkloadTrace
	staged := len(cfg.Stages) > 0
	if staged {
		validateStages(cfg, bad)
	}
	validateMix(cfg, bad)
	switch {
	case staged:
	case traced && cfg.Rate > 0:
		bad("load: a trace sends each request at its timestamp; it takes no rate")
	case traced && cfg.Workload.TimeScale < 0:
		bad("load: time_scale must not be negative, got %g", cfg.Workload.TimeScale)
	case !traced && cfg.Rate == 0 && cfg.Concurrency == 0:
		bad("load: set concurrency (closed loop) or rate (open loop)")
	}
	if cfg.Burstiness < 0 {
		bad("load: burstiness must not be negative, got %g", cfg.Burstiness)
	}
	if cfg.Requests < 0 || cfg.Duration < 0 || cfg.Warmup < 0 {
		bad("load: requests, duration and warmup must not be negative")
	}
	if cfg.RampUp < 0 {
		bad("load: ramp_up must not be negative")
	}
	if cfg.RampUp > 0 && cfg.Rate > 0 {
		bad("load: ramp_up staggers a closed loop's users; an open loop ramps its rate with a ramp")
	}
	if cfg.Requests == 0 && cfg.Duration == 0 && !staged {
		bad("load: set requests or duration, or the run never ends")
	}
	switch {
	case cfg.Ramp.Kind == "":
	case cfg.Ramp.Kind.Valid():
		if cfg.Rate == 0 {
			bad("load: a ramp needs a rate to ramp to")
		}
		if cfg.Ramp.Over <= 0 {
			bad("load: a ramp needs a positive duration (over)")
		}
		if cfg.Ramp.Kind == runspec.RampExponential && cfg.Ramp.From <= 0 {
			bad("load: an exponential ramp must start above 0 requests/s")
		}
		if cfg.Ramp.From < 0 {
			bad("load: ramp start rate must not be negative")
		}
	default:
		bad("load: unknown ramp %q (want linear or exponential)", cfg.Ramp.Kind)
	}
	w := cfg.Workload
	if w.InputTokens < 0 || w.OutputTokens < 0 || w.PrefixTokens < 0 || w.PrefixGroups < 0 || w.Turns < 0 {
		bad("load: workload lengths and counts must not be negative")
	}
	if w.OutputTokens == 0 && w.Kind != runspec.WorkloadDataset && w.Kind != runspec.WorkloadTrace {
		bad("load: workload needs output_tokens > 0")
	}
	if w.RangeRatio < 0 || w.RangeRatio >= 1 {
		bad("load: range_ratio must be in [0, 1), got %g", w.RangeRatio)
	}
	return errors.Join(errs...)
}
