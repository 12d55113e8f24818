package results

import (
	"fmt"
	"io"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// ServerSnapshot is one scrape of a vLLM server's /metrics, reduced to what
// the summary needs. Counts are summed across label sets (engines, models);
// the KV-cache usage, a fraction, is the largest across them, since two
// engines half full are not one engine full.
// A Has* flag is false when the server did not expose that metric.
type ServerSnapshot struct {
	KVCacheUsage     float64 // vllm:kv_cache_usage_perc (0..1), or the older vllm:gpu_cache_usage_perc
	RequestsWaiting  float64 // vllm:num_requests_waiting
	RequestsRunning  float64 // vllm:num_requests_running
	Preemptions      float64 // vllm:num_preemptions_total (counter)
	PrefixQueries    float64 // vllm:prefix_cache_queries_total (counter, tokens)
	PrefixHits       float64 // vllm:prefix_cache_hits_total (counter, tokens)
	HasKVCacheUsage  bool
	HasWaiting       bool
	HasRunning       bool
	HasPreemptions   bool
	HasPrefixQueries bool
	HasPrefixHits    bool
}

// Any reports whether the scrape held any vLLM metric we use.
func (s ServerSnapshot) Any() bool {
	return s.HasKVCacheUsage || s.HasWaiting || s.HasRunning || s.HasPreemptions || s.HasPrefixQueries || s.HasPrefixHits
}

// metric names by snapshot field, without the _total suffix; the first
// name found wins so newer names take precedence over older ones.
var (
	kvNames       = []string{"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"}
	waitingNames  = []string{"vllm:num_requests_waiting"}
	runningNames  = []string{"vllm:num_requests_running"}
	preemptNames  = []string{"vllm:num_preemptions", "vllm:num_preemption"}
	queriesNames  = []string{"vllm:prefix_cache_queries", "vllm:gpu_prefix_cache_queries"}
	hitsNames     = []string{"vllm:prefix_cache_hits", "vllm:gpu_prefix_cache_hits"}
	promTextModel = model.UTF8Validation
)

// ParseServerMetrics reads Prometheus text exposition (as vLLM serves on
// /metrics) and returns the snapshot. Metrics it does not know are ignored.
func ParseServerMetrics(r io.Reader) (ServerSnapshot, error) {
	p := expfmt.NewTextParser(promTextModel)
	fams, err := p.TextToMetricFamilies(r)
	if err != nil {
		return ServerSnapshot{}, fmt.Errorf("parse prometheus metrics: %w", err)
	}
	var s ServerSnapshot
	s.KVCacheUsage, s.HasKVCacheUsage = lookup(fams, kvNames, maxf)
	s.RequestsWaiting, s.HasWaiting = lookup(fams, waitingNames, add)
	s.RequestsRunning, s.HasRunning = lookup(fams, runningNames, add)
	s.Preemptions, s.HasPreemptions = lookup(fams, preemptNames, add)
	s.PrefixQueries, s.HasPrefixQueries = lookup(fams, queriesNames, add)
	s.PrefixHits, s.HasPrefixHits = lookup(fams, hitsNames, add)
	return s, nil
}

func add(a, b float64) float64  { return a + b }
func maxf(a, b float64) float64 { return max(a, b) }

// lookup finds the first of names (tolerating a _total suffix either way)
// and folds its samples across label sets with combine.
func lookup(fams map[string]*dto.MetricFamily, names []string, combine func(a, b float64) float64) (float64, bool) {
	for _, n := range names {
		base := strings.TrimSuffix(n, "_total")
		for _, cand := range []string{base, base + "_total"} {
			if f, ok := fams[cand]; ok {
				return fold(f, combine), true
			}
		}
	}
	return 0, false
}

// fold combines the values of f's gauge, counter and untyped samples.
func fold(f *dto.MetricFamily, combine func(a, b float64) float64) float64 {
	var t float64
	for i, m := range f.GetMetric() {
		var v float64
		switch {
		case m.Gauge != nil:
			v = m.GetGauge().GetValue()
		case m.Counter != nil:
			v = m.GetCounter().GetValue()
		case m.Untyped != nil:
			v = m.GetUntyped().GetValue()
		default:
			continue
		}
		if i == 0 {
			t = v
		} else {
			t = combine(t, v)
		}
	}
	return t
}

// ServerMetricsFrom reduces the scrapes of one run (in time order: before,
// during, after) to its ServerMetrics: maxima of the gauges over all scrapes,
// counter deltas from first to last, and the prefix-cache hit rate as
// Δhits/Δqueries (0 when no queries). It returns nil when no scrape held any
// vLLM metric, i.e. the server has no usable /metrics.
func ServerMetricsFrom(snaps []ServerSnapshot) *ServerMetrics {
	var have []ServerSnapshot
	for _, s := range snaps {
		if s.Any() {
			have = append(have, s)
		}
	}
	if len(have) == 0 {
		return nil
	}
	m := &ServerMetrics{}
	for _, s := range have {
		m.KVCacheUsageMax = max(m.KVCacheUsageMax, s.KVCacheUsage)
		m.RequestsWaitingMax = max(m.RequestsWaitingMax, s.RequestsWaiting)
	}
	first, last := have[0], have[len(have)-1]
	m.Preemptions = nonNeg(last.Preemptions - first.Preemptions)
	if dq := last.PrefixQueries - first.PrefixQueries; dq > 0 {
		m.PrefixCacheHitRate = nonNeg(last.PrefixHits-first.PrefixHits) / dq
	}
	return m
}

// nonNeg clamps a counter delta: a counter that went down means the server
// restarted, and the delta is unknown, so 0.
func nonNeg(v float64) float64 {
	if v < 0 {
		return 0
	}
	return v
}
