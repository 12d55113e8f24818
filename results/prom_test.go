package results

import (
	"strings"
	"testing"
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
`, want: ServerSnapshot{KVCacheUsage: 0.5, HasKVCacheUsage: true, Preemptions: 7, HasPreemptions: true, RequestsWaiting: 7, HasWaiting: true}},
		// older names: gpu_ prefixes and counters without _total
		{name: "v0", in: `vllm:gpu_cache_usage_perc 0.4
vllm:num_preemptions 2
vllm:gpu_prefix_cache_queries_total 10
vllm:gpu_prefix_cache_hits_total 4
vllm:num_requests_waiting 1
`, want: ServerSnapshot{KVCacheUsage: 0.4, HasKVCacheUsage: true, Preemptions: 2, HasPreemptions: true,
			PrefixQueries: 10, HasPrefixQueries: true, PrefixHits: 4, HasPrefixHits: true, RequestsWaiting: 1, HasWaiting: true}},
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
