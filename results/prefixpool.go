package results

// prefixPool pools the blocks' prefix-cache figures: the tokens looked up
// and hit, summed over the blocks that counted them, and the hit rate of
// the sums. A block whose server reported no counters adds nothing.
type prefixPool struct {
	queries, hits float64
	counted       bool // a block reported its queries and hits
	// rate is the highest rate of a block that reported a rate but not
	// its terms (a file written before they were stored): nothing else
	// can be pooled from it.
	rate *float64
}

func (p *prefixPool) add(m *ServerMetrics) {
	if m.PrefixCacheQueries != nil && m.PrefixCacheHits != nil {
		p.queries += *m.PrefixCacheQueries
		p.hits += *m.PrefixCacheHits
		p.counted = true
		return
	}
	if r := m.PrefixCacheHitRate; r != nil && (p.rate == nil || *r > *p.rate) {
		p.rate = ptr(*r)
	}
}

// pooled is the merged queries, hits and rate (see PrefixCacheFigures);
// all nil when no block reported them.
func (p *prefixPool) pooled() (queries, hits, rate *float64) {
	if !p.counted {
		return nil, nil, p.rate
	}
	return PrefixCacheFigures(p.queries, p.hits)
}

// PrefixCacheFigures is what ServerMetrics stores of a window in which
// queries prompt tokens were looked up in the prefix cache and hits of
// them hit: both counts, hits at most queries (more is a broken exporter:
// at most all hit), and the hit rate hits / queries, 0 when no token was
// looked up (a server that counts but caches nothing, as vLLM without
// prefix caching, served nothing from its cache).
func PrefixCacheFigures(queries, hits float64) (q, h, rate *float64) {
	hits = min(hits, queries)
	var r float64
	if queries > 0 {
		r = hits / queries
	}
	return &queries, &hits, &r
}
