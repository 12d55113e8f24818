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

// pooled is the merged queries, hits and rate (0 when the blocks looked
// up no token, as ServerMetrics' own); all nil when no block reported
// them.
func (p *prefixPool) pooled() (queries, hits, rate *float64) {
	if !p.counted {
		return nil, nil, p.rate
	}
	queries, hits, rate = ptr(p.queries), ptr(min(p.hits, p.queries)), ptr(0)
	if p.queries > 0 {
		*rate = *hits / p.queries
	}
	return queries, hits, rate
}
