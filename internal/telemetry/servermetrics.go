package telemetry

import "github.com/llmgate/llmgate/results"

// ServerMetricsFrom reduces the scrapes of one run (in time order: before,
// during, after) to its ServerMetrics: maxima of the gauges over all
// scrapes, counter deltas from first to last, the prefix cache's figures
// (see prefixCache), and the latency split from the histograms' deltas
// between the first and the last scrape that had them. It returns nil
// when no scrape held any server metric llmgate reads, i.e. the server
// has no usable /metrics.
func ServerMetricsFrom(snaps []ServerSnapshot) *results.ServerMetrics {
	var have []ServerSnapshot
	for _, s := range snaps {
		if s.Any() {
			have = append(have, s)
		}
	}
	if len(have) == 0 {
		return nil
	}
	m := &results.ServerMetrics{}
	for _, s := range have {
		m.KVCacheUsageMax = max(m.KVCacheUsageMax, s.KVCacheUsage)
		m.RequestsWaitingMax = max(m.RequestsWaitingMax, s.RequestsWaiting)
	}
	first, last := have[0], have[len(have)-1]
	m.Preemptions = nonNeg(last.Preemptions - first.Preemptions)
	m.PrefixCacheQueries, m.PrefixCacheHits, m.PrefixCacheHitRate = prefixCache(have)
	addSplit(m, have)
	m.SpecDecode = specDecodeFrom(have)
	return m
}

// prefixCache is the prompt tokens looked up in the prefix cache and those
// that hit, from the first to the last scrape that had both counters, and
// the hit rate (see results.PrefixCacheFigures). All three are nil when
// fewer than two scrapes had the counters (the server reports none: not
// 0) or a counter went back (the server restarted: the window's are
// unknown).
func prefixCache(snaps []ServerSnapshot) (queries, hits, rate *float64) {
	var first, last *ServerSnapshot
	for i := range snaps {
		if s := &snaps[i]; s.HasPrefixQueries && s.HasPrefixHits {
			if first == nil {
				first = s
			} else {
				last = s
			}
		}
	}
	if first == nil || last == nil {
		return nil, nil, nil
	}
	dq, dh := last.PrefixQueries-first.PrefixQueries, last.PrefixHits-first.PrefixHits
	if dq < 0 || dh < 0 {
		return nil, nil, nil
	}
	return results.PrefixCacheFigures(dq, dh)
}

// nonNeg clamps a counter delta: a counter that went down means the server
// restarted, and the delta is unknown, so 0.
func nonNeg(v float64) float64 {
	if v < 0 {
		return 0
	}
	return v
}
