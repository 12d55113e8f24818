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
