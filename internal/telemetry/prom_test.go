package telemetry

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/results"
)

func TestParseServerMetrics(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want ServerSnapshot
	}{
		// current vLLM names with label sets: counts summed across engines, KV usage the fullest engine's
		{name: "v1", in: `# TYPE vllm:kv_cache_usage_perc gauge
vllm:kv_cache_usage_perc{engine="0"} 0.25
vllm:kv_cache_usage_perc{engine="1"} 0.5
# TYPE vllm:num_preemptions_total counter
vllm:num_preemptions_total{engine="0"} 3
vllm:num_preemptions_total{engine="1"} 4
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{engine="0"} 2
vllm:num_requests_waiting{engine="1"} 5
`, want: ServerSnapshot{KVCacheUsage: 0.5, HasKVCacheUsage: true, Preemptions: 7, HasPreemptions: true, RequestsWaiting: 7, HasWaiting: true, Family: MetricsVLLM}},
		// older names: gpu_ prefixes and counters without _total
		{name: "v0", in: `vllm:gpu_cache_usage_perc 0.4
vllm:num_preemptions 2
vllm:gpu_prefix_cache_queries_total 10
vllm:gpu_prefix_cache_hits_total 4
vllm:num_requests_waiting 1
`, want: ServerSnapshot{KVCacheUsage: 0.4, HasKVCacheUsage: true, Preemptions: 2, HasPreemptions: true,
			PrefixQueries: 10, HasPrefixQueries: true, PrefixHits: 4, HasPrefixHits: true, RequestsWaiting: 1, HasWaiting: true, Family: MetricsVLLM}},
		// SGLang (names from its production-metrics docs and collector):
		// the GPU's cached tokens only, not the host tier's; the gauge of
		// the latest batch's retractions is not the counter
		{name: "sglang", in: `# TYPE sglang:token_usage gauge
sglang:token_usage{model_name="m"} 0.28
# TYPE sglang:num_running_reqs gauge
sglang:num_running_reqs{model_name="m"} 162
# TYPE sglang:num_queue_reqs gauge
sglang:num_queue_reqs{model_name="m"} 12
# TYPE sglang:num_retracted_reqs gauge
sglang:num_retracted_reqs{model_name="m"} 1
# TYPE sglang:num_retracted_requests_total counter
sglang:num_retracted_requests_total{model_name="m"} 48
# TYPE sglang:prompt_tokens_total counter
sglang:prompt_tokens_total{model_name="m"} 4096
# TYPE sglang:cached_tokens_total counter
sglang:cached_tokens_total{model_name="m",cache_source="device"} 3000
sglang:cached_tokens_total{model_name="m",cache_source="host"} 168
`, want: ServerSnapshot{KVCacheUsage: 0.28, HasKVCacheUsage: true, RequestsRunning: 162, HasRunning: true, RequestsWaiting: 12, HasWaiting: true,
			Preemptions: 48, HasPreemptions: true, PrefixQueries: 4096, HasPrefixQueries: true, PrefixHits: 3000, HasPrefixHits: true, Family: MetricsSGLang}},
		// an SGLang build whose cached tokens carry no source label
		{name: "sglang unlabelled", in: "sglang:cached_tokens_total{model_name=\"m\"} 7\n",
			want: ServerSnapshot{PrefixHits: 7, HasPrefixHits: true, Family: MetricsSGLang}},
		// llama.cpp's server: running, deferred, and (older builds) KV usage;
		// its prompt-token counter is not a cache query count
		{name: "llamacpp", in: `# TYPE llamacpp:requests_processing gauge
llamacpp:requests_processing 2
# TYPE llamacpp:requests_deferred gauge
llamacpp:requests_deferred 1
# TYPE llamacpp:kv_cache_usage_ratio gauge
llamacpp:kv_cache_usage_ratio 0.63
# TYPE llamacpp:prompt_tokens_total counter
llamacpp:prompt_tokens_total 6886
`, want: ServerSnapshot{KVCacheUsage: 0.63, HasKVCacheUsage: true, RequestsRunning: 2, HasRunning: true, RequestsWaiting: 1, HasWaiting: true, Family: MetricsLlamaCpp}},
		// a non-vLLM exporter: nothing we use
		{name: "other", in: "process_cpu_seconds_total 12\n", want: ServerSnapshot{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseServerMetrics(strings.NewReader(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
	if _, err := ParseServerMetrics(strings.NewReader("<html>not found</html>")); err == nil {
		t.Error("HTML parsed as metrics")
	}
}

func TestServerMetricsFrom(t *testing.T) {
	if ServerMetricsFrom(nil) != nil || ServerMetricsFrom([]ServerSnapshot{{}}) != nil {
		t.Error("no vLLM metrics must give nil")
	}
	// a counter that went down (server restart) gives 0, not a negative delta
	m := ServerMetricsFrom([]ServerSnapshot{
		{Preemptions: 9, HasPreemptions: true},
		{Preemptions: 2, HasPreemptions: true},
	})
	if m.Preemptions != 0 {
		t.Errorf("preemptions %v after a reset, want 0", m.Preemptions)
	}
}

// TestParseServerMetricsRefusesValuesOutOfRange checks that a metric with a
// NaN, an infinity, a negative or an absurd value (or samples that sum
// past its limit) is left out as absent and named in Refused, while the
// page's other metrics are read: such a value made the results file
// unwritable ("json: unsupported value: NaN") or unreadable.
func TestParseServerMetricsRefusesValuesOutOfRange(t *testing.T) {
	const rest = "vllm:num_requests_running{engine=\"0\"} 3\n"
	tests := []struct {
		name, page, refused string
		has                 func(ServerSnapshot) bool
	}{
		{"NaN", "vllm:kv_cache_usage_perc{engine=\"0\"} NaN\n", "vllm:kv_cache_usage_perc left out: a sample is NaN: a ratio must be a finite number",
			func(s ServerSnapshot) bool { return s.HasKVCacheUsage }},
		{"NaN in one engine", "vllm:num_requests_waiting{engine=\"0\"} 2\nvllm:num_requests_waiting{engine=\"1\"} NaN\n", "vllm:num_requests_waiting left out: a sample is NaN",
			func(s ServerSnapshot) bool { return s.HasWaiting }},
		{"+Inf", "vllm:num_preemptions_total{engine=\"0\"} +Inf\n", "vllm:num_preemptions_total left out: a sample is +Inf: a count must be a finite number",
			func(s ServerSnapshot) bool { return s.HasPreemptions }},
		{"-Inf", "vllm:prefix_cache_queries_total{engine=\"0\"} -Inf\n", "vllm:prefix_cache_queries_total left out: a sample is -Inf",
			func(s ServerSnapshot) bool { return s.HasPrefixQueries }},
		{"negative", "vllm:prefix_cache_hits_total{engine=\"0\"} -5\n", "vllm:prefix_cache_hits_total left out: a sample = -5: a token count cannot be negative",
			func(s ServerSnapshot) bool { return s.HasPrefixHits }},
		{"a ratio past 1", "sglang:token_usage 1.5\n", "sglang:token_usage left out: a sample = 1.5: a ratio above 1 is absurd",
			func(s ServerSnapshot) bool { return s.HasKVCacheUsage }},
		{"a sum past the limit", "vllm:num_requests_waiting{engine=\"0\"} 6e8\nvllm:num_requests_waiting{engine=\"1\"} 6e8\n",
			"vllm:num_requests_waiting left out: the samples' sum = 1.2e+09: a count above 1e+09 is absurd",
			func(s ServerSnapshot) bool { return s.HasWaiting }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ParseServerMetrics(strings.NewReader(tt.page + rest))
			if err != nil {
				t.Fatal(err)
			}
			if tt.has(s) || !strings.Contains(s.Refused, tt.refused) {
				t.Errorf("snapshot %+v; want the metric absent and Refused holding %q", s, tt.refused)
			}
			if !s.HasRunning || s.RequestsRunning != 3 {
				t.Errorf("the page's other metric was not read: %+v", s)
			}
			if m := ServerMetricsFrom([]ServerSnapshot{s, s}); results.LimitRatio.Problem(m.KVCacheUsageMax)+results.LimitCount.Problem(m.RequestsWaitingMax)+results.LimitCount.Problem(m.Preemptions) != "" {
				t.Errorf("server metrics %+v out of range", m)
			}
		})
	}
}

// TestServerMetricsHitRateAtMostOne checks that an exporter counting more
// prefix-cache hits than queries gives a hit rate of at most 1, which the
// results file's check accepts.
func TestServerMetricsHitRateAtMostOne(t *testing.T) {
	m := ServerMetricsFrom([]ServerSnapshot{
		{PrefixQueries: 100, HasPrefixQueries: true, PrefixHits: 0, HasPrefixHits: true},
		{PrefixQueries: 150, HasPrefixQueries: true, PrefixHits: 90, HasPrefixHits: true},
	})
	if m.PrefixCacheHitRate == nil || *m.PrefixCacheHitRate != 1 || *m.PrefixCacheHits != 50 || *m.PrefixCacheQueries != 50 {
		t.Errorf("hit rate %v with %v hits of %v queries; want 1, 50 of 50", deref(m.PrefixCacheHitRate), deref(m.PrefixCacheHits), deref(m.PrefixCacheQueries))
	}
}

// deref is *v, NaN for nil (printed, a nil pointer says nothing of 0).
func deref(v *float64) float64 {
	if v == nil {
		return math.NaN()
	}
	return *v
}

// TestPrefixCacheAbsentIsNotZero checks that a server whose /metrics has
// no prefix-cache counters (llama.cpp's) gives no prefix-cache figures,
// not a hit rate of 0, so that server.prefix_cache_hit_rate is not
// measured (and says why) rather than a 0 an assert would pass or fail
// on; a server that counts them and missed every lookup gives a real 0.
func TestPrefixCacheAbsentIsNotZero(t *testing.T) {
	page := func(extra string) ServerSnapshot {
		s, err := ParseServerMetrics(strings.NewReader("# TYPE llamacpp:requests_processing gauge\nllamacpp:requests_processing 2\n" + extra))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	mt, _ := results.LookupMetric("server.prefix_cache_hit_rate")
	m := ServerMetricsFrom([]ServerSnapshot{page(""), page("")})
	if m == nil {
		t.Fatal("no server metrics from a page with a gauge")
	}
	if m.PrefixCacheHitRate != nil || m.PrefixCacheQueries != nil || m.PrefixCacheHits != nil {
		t.Errorf("without counters: rate %v, queries %v, hits %v; want all absent", deref(m.PrefixCacheHitRate), deref(m.PrefixCacheQueries), deref(m.PrefixCacheHits))
	}
	s := &results.Summary{Server: m}
	if v, ok := mt.Value(s); ok {
		t.Errorf("server.prefix_cache_hit_rate = %v of a server without prefix-cache counters", v)
	}
	if why := mt.WhyNotMeasured(s); !strings.Contains(why, "no prefix-cache counters") {
		t.Errorf("why not measured: %q", why)
	}
	// the file keeps them absent: nothing written, nil read back
	var b bytes.Buffer
	f := &results.File{Version: results.SchemaVersion, Runs: []results.Run{{Name: "chat", Scenario: "chat", Status: results.StatusOK, Summary: *s}}}
	if err := f.Write(&b); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "prefix_cache_hit_rate") {
		t.Errorf("the file writes a hit rate the server did not report")
	}
	back, err := results.Read(&b)
	if err != nil {
		t.Fatal(err)
	}
	if got := back.Runs[0].Summary.Server; got == nil || got.PrefixCacheHitRate != nil {
		t.Errorf("read back: %+v, want server metrics without a hit rate", got)
	}
	// counters that saw 1000 tokens looked up and none hit: a measured 0
	counters := func(q float64) string {
		return fmt.Sprintf("# TYPE vllm:prefix_cache_queries counter\nvllm:prefix_cache_queries_total %g\n# TYPE vllm:prefix_cache_hits counter\nvllm:prefix_cache_hits_total 0\n", q)
	}
	m = ServerMetricsFrom([]ServerSnapshot{page(counters(500)), page(counters(1500))})
	if m.PrefixCacheHitRate == nil || *m.PrefixCacheHitRate != 0 || *m.PrefixCacheQueries != 1000 || *m.PrefixCacheHits != 0 {
		t.Errorf("with counters that missed: rate %v, queries %v, hits %v; want 0, 1000, 0", deref(m.PrefixCacheHitRate), deref(m.PrefixCacheQueries), deref(m.PrefixCacheHits))
	}
	if v, ok := mt.Value(&results.Summary{Server: m}); !ok || v != 0 {
		t.Errorf("server.prefix_cache_hit_rate = %v (present %v), want a measured 0", v, ok)
	}
	// counters that looked nothing up (vLLM without prefix caching): the
	// cache served nothing, a measured 0
	m = ServerMetricsFrom([]ServerSnapshot{page(counters(0)), page(counters(0))})
	if m.PrefixCacheHitRate == nil || *m.PrefixCacheHitRate != 0 || *m.PrefixCacheQueries != 0 {
		t.Errorf("with counters that stayed 0: rate %v, queries %v; want 0 and 0", deref(m.PrefixCacheHitRate), deref(m.PrefixCacheQueries))
	}
	// a restart between the scrapes: the window's counts are unknown
	m = ServerMetricsFrom([]ServerSnapshot{page(counters(1500)), page(counters(500))})
	if m.PrefixCacheHitRate != nil || m.PrefixCacheQueries != nil {
		t.Errorf("after a restart: rate %v, queries %v; want absent", deref(m.PrefixCacheHitRate), deref(m.PrefixCacheQueries))
	}
}
