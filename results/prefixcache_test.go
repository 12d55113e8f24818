package results

import (
	"bytes"
	"strings"
	"testing"
)

// TestPrefixCacheOldFiles reads files written before the prefix cache's
// figures could be absent: one that wrote a hit rate of 0 (its server may
// or may not have counted) reads a 0, as written; one that wrote a rate
// and its terms reads them; one that omitted them reads none, not 0.
func TestPrefixCacheOldFiles(t *testing.T) {
	f := &File{Version: SchemaVersion, Runs: []Run{{Name: "chat", Scenario: "chat", Status: StatusOK,
		Summary: Summary{Server: &ServerMetrics{KVCacheUsageMax: 0.5}}}}}
	var b bytes.Buffer
	if err := f.Write(&b); err != nil {
		t.Fatal(err)
	}
	written := b.String()
	const kv = `"kv_cache_usage_max": 0.5`
	if !strings.Contains(written, kv) {
		t.Fatalf("the file does not hold %s:\n%s", kv, written)
	}
	if strings.Contains(written, "prefix_cache") {
		t.Fatalf("a server without prefix-cache figures wrote some:\n%s", written)
	}
	read := func(t *testing.T, server string) *ServerMetrics {
		t.Helper()
		g, err := Read(strings.NewReader(strings.Replace(written, kv, server, 1)))
		if err != nil {
			t.Fatal(err)
		}
		return g.Runs[0].Summary.Server
	}
	t.Run("zero written", func(t *testing.T) {
		m := read(t, kv+`, "prefix_cache_hit_rate": 0`)
		if m.PrefixCacheHitRate == nil || *m.PrefixCacheHitRate != 0 || m.PrefixCacheQueries != nil || m.PrefixCacheHits != nil {
			t.Errorf("read %+v: want a rate of 0 and no counts", m)
		}
		if v, ok := mustMetric(t, "server.prefix_cache_hit_rate").Value(&Summary{Server: m}); !ok || v != 0 {
			t.Errorf("server.prefix_cache_hit_rate = %v (present %v), want the 0 written", v, ok)
		}
	})
	t.Run("counts written", func(t *testing.T) {
		m := read(t, kv+`,"prefix_cache_hit_rate":0.25,"prefix_cache_queries":4000,"prefix_cache_hits":1000`)
		if m.PrefixCacheHitRate == nil || *m.PrefixCacheHitRate != 0.25 || m.PrefixCacheQueries == nil || *m.PrefixCacheQueries != 4000 || m.PrefixCacheHits == nil || *m.PrefixCacheHits != 1000 {
			t.Errorf("read %+v: want 0.25 of 4000 queries, 1000 hits", m)
		}
	})
	t.Run("omitted", func(t *testing.T) {
		m := read(t, kv)
		if m.PrefixCacheHitRate != nil || m.PrefixCacheQueries != nil || m.PrefixCacheHits != nil {
			t.Errorf("read %+v: want no prefix-cache figures", m)
		}
		if _, ok := mustMetric(t, "server.prefix_cache_hit_rate").Value(&Summary{Server: m}); ok {
			t.Error("server.prefix_cache_hit_rate has a value the file does not hold")
		}
	})
	t.Run("out of range", func(t *testing.T) {
		_, err := Read(strings.NewReader(strings.Replace(written, kv, kv+`,"prefix_cache_hit_rate":1.5`, 1)))
		if err == nil || !strings.Contains(err.Error(), "prefix_cache_hit_rate") {
			t.Errorf("a hit rate of 1.5 read: %v", err)
		}
	})
}

func mustMetric(t *testing.T, name string) Metric {
	t.Helper()
	m, ok := LookupMetric(name)
	if !ok {
		t.Fatalf("no metric %s", name)
	}
	return m
}
