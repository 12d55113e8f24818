package load

import (
	"fmt"

	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
)

// quantileSample is how many measured requests' lengths the quantile
// edges of a run bounded by duration alone are drawn from.
const quantileSample = 1000

// ResolveLengthBuckets returns cfg with the edges of its quantile buckets
// (Workload.LengthQuantiles) set: the quantiles of the input lengths its
// workload asks for on the measured requests (the first Requests, or the
// first 1000 of a run bounded by duration), prefix included. Prompts
// derive from the seed and the run's name (RunName), not from anything
// measured, so a baseline and a candidate run of the same run get the same
// edges. cfg is returned unchanged when it asks for no quantile buckets.
// Only workloads whose lengths are drawn up front have quantiles: random,
// prefix and structured ones.
func ResolveLengthBuckets(cfg Config) (Config, error) {
	w := cfg.Workload
	if w.LengthQuantiles == 0 || w.LengthBuckets != nil {
		return cfg, nil
	}
	switch w.Kind {
	case runspec.WorkloadRandom, "", runspec.WorkloadPrefix, runspec.WorkloadStructured:
	default:
		return cfg, fmt.Errorf("load: length quantiles need a random, prefix or structured workload, not %s: declare length_buckets edges", w.Kind)
	}
	wl, err := newWorkload(cfg)
	if err != nil {
		return cfg, err
	}
	n := cfg.Requests
	if n <= 0 {
		n = quantileSample
	}
	lengths := make([]int, n)
	for i := range lengths {
		lengths[i] = wl.next(slot{seq: cfg.Warmup + i, index: i}).wantIn
	}
	cfg.Workload.LengthBuckets = results.QuantileEdges(lengths, w.LengthQuantiles)
	return cfg, nil
}
