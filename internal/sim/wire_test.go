package sim

import (
	"fmt"
	"io"
	"math"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/internal/golden"
)

var (
	idRE      = regexp.MustCompile(`"id":"(cmpl|chatcmpl|modelperm)-[0-9a-f]{32}"`)
	createdRE = regexp.MustCompile(`"created":[0-9]+`)
)

// normalize replaces the per-run parts of a response (ids, timestamps).
func normalize(b []byte) []byte {
	b = idRE.ReplaceAll(b, []byte(`"id":"$1-<ID>"`))
	return createdRE.ReplaceAll(b, []byte(`"created":<TIME>`))
}

// Each endpoint's answer matches vLLM's documented shape, byte for byte
// apart from ids and timestamps (testdata/*.golden; -update rewrites them).
func TestWireFormat(t *testing.T) {
	// Slow steps (~30 ms) so that every token gets its own chunk even on a busy machine.
	cfg := mustArgs(t, "--profile", "tiny", "--seed", "1", "--max-model-len", "512", "--slowdown", "20")
	_, base := startSim(t, cfg)
	_, keyed := startSim(t, mustArgs(t, "--profile", "tiny", "--api-key", "sekret"))
	_, failing := startSim(t, mustArgs(t, "--profile", "tiny", "--fail-rate", "1"))
	_, reasoning := startSim(t, mustArgs(t, "--profile", "tiny", "--seed", "1", "--max-model-len", "512", "--slowdown", "20", "--reasoning-tokens", "2"))
	tests := []struct {
		name   string
		base   string
		method string
		path   string
		body   string
	}{
		// Streamed completion of a token-id prompt with the final usage chunk.
		{"completions_stream", base, "POST", "/v1/completions", `{"model":"llmgate/tiny-sim","prompt":[1000,1001,1002,1003],"max_tokens":3,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true}}`},
		// Streamed completion with running usage in every chunk.
		{"completions_stream_continuous", base, "POST", "/v1/completions", `{"prompt":"Hello there","max_tokens":2,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true,"continuous_usage_stats":true}}`},
		// Streamed chat: role chunk first, then content, then usage.
		{"chat_stream", base, "POST", "/v1/chat/completions", `{"messages":[{"role":"user","content":"Hi!"}],"max_completion_tokens":3,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true}}`},
		// Streamed chat with continuous usage stats.
		{"chat_stream_continuous", base, "POST", "/v1/chat/completions", `{"messages":[{"role":"user","content":"Hi!"}],"max_tokens":2,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true,"continuous_usage_stats":true}}`},
		// Non-streamed completion, two prompts in one request.
		{"completions", base, "POST", "/v1/completions", `{"prompt":["one","two"],"max_tokens":2,"ignore_eos":true}`},
		// Non-streamed chat.
		{"chat", base, "POST", "/v1/chat/completions", `{"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":[{"type":"text","text":"Hi!"}]}],"max_tokens":3,"ignore_eos":true}`},
		// --reasoning-tokens 2: two tokens of reasoning_content, then the answer's content.
		{"chat_stream_reasoning", reasoning, "POST", "/v1/chat/completions", `{"messages":[{"role":"user","content":"Hi!"}],"max_tokens":4,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true}}`},
		// The same answer whole: the reasoning in message.reasoning_content.
		{"chat_reasoning", reasoning, "POST", "/v1/chat/completions", `{"messages":[{"role":"user","content":"Hi!"}],"max_tokens":4,"ignore_eos":true}`},
		// The model list.
		{"models", base, "GET", "/v1/models", ``},
		// Tokenize text with token strings.
		{"tokenize", base, "POST", "/tokenize", `{"prompt":"the model streams tokens","return_token_strs":true}`},
		// Tokenize chat messages.
		{"tokenize_chat", base, "POST", "/tokenize", `{"messages":[{"role":"user","content":"Hi!"}]}`},
		// Detokenize ids.
		{"detokenize", base, "POST", "/detokenize", `{"tokens":[256,1000,1001,32,104,105]}`},
		// The version.
		{"version", base, "GET", "/version", ``},
		// Health is an empty 200.
		{"health", base, "GET", "/health", ``},
		// A prompt at max-model-len is a 400.
		{"error_prompt_too_long", base, "POST", "/v1/completions", fmt.Sprintf(`{"prompt":%s,"max_tokens":1}`, jsonInts(promptIDs(1, 512)))},
		// max_tokens past max-model-len is a 400.
		{"error_max_tokens", base, "POST", "/v1/completions", `{"prompt":[1,2,3],"max_tokens":600}`},
		// Malformed JSON is a 400.
		{"error_malformed", base, "POST", "/v1/completions", `{"prompt":`},
		// An unknown model is a 404, as vLLM answers it.
		{"error_unknown_model", base, "POST", "/v1/chat/completions", `{"model":"gpt-4","messages":[{"role":"user","content":"Hi"}]}`},
		// A token id outside the vocabulary is a 400.
		{"error_bad_token", base, "POST", "/v1/completions", `{"prompt":[1,99999999],"max_tokens":1}`},
		// --api-key: a /v1 request without the key is a 401.
		{"error_unauthorized", keyed, "GET", "/v1/models", ``},
		// --api-key does not guard /health.
		{"health_with_key", keyed, "GET", "/health", ``},
		// --fail-rate 1: every generation request is a 500.
		{"error_fail_rate", failing, "POST", "/v1/completions", `{"prompt":"x","max_tokens":1}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var body io.Reader
			if tc.body != "" {
				body = strings.NewReader(tc.body)
			}
			req, _ := http.NewRequest(tc.method, tc.base+tc.path, body)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			got := fmt.Sprintf("HTTP %d\nContent-Type: %s\n\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), normalize(b))
			golden.Check(t, filepath.Join("testdata", tc.name+".golden"), got)
		})
	}
}

func jsonInts(ids []int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprint(&b, id)
	}
	b.WriteByte(']')
	return b.String()
}

// /metrics carries every metric the issue lists, with vLLM's labels.
func TestMetricsNames(t *testing.T) {
	_, base := startSim(t, mustArgs(t, "--profile", "tiny", "--served-model-name", "my-model"))
	load(t, base+"/v1/completions", 2, 4, func(i int) any { return completion(promptIDs(i, 20), 5) })
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	text := string(b)
	for _, name := range []string{
		"vllm:num_requests_running", "vllm:num_requests_waiting", "vllm:kv_cache_usage_perc",
		"vllm:prefix_cache_queries_total", "vllm:prefix_cache_hits_total", "vllm:num_preemptions_total",
		"vllm:prompt_tokens_total", "vllm:generation_tokens_total", "vllm:request_success_total",
		"vllm:time_to_first_token_seconds_bucket", "vllm:inter_token_latency_seconds_bucket",
		"vllm:e2e_request_latency_seconds_bucket", "vllm:request_queue_time_seconds_bucket",
		"vllm:request_prefill_time_seconds_bucket", "vllm:request_decode_time_seconds_bucket", "vllm:request_inference_time_seconds_bucket",
	} {
		if !strings.Contains(text, name+"{engine=\"0\",") {
			t.Errorf("/metrics lacks %s with an engine label", name)
		}
	}
	if !strings.Contains(text, `model_name="my-model"`) {
		t.Errorf("/metrics lacks model_name=\"my-model\"")
	}
	m := scrape(t, base)
	if m["vllm:generation_tokens_total"] != 20 || m["vllm:prompt_tokens_total"] != 80 {
		t.Errorf("generation/prompt tokens = %v/%v, want 20/80", m["vllm:generation_tokens_total"], m["vllm:prompt_tokens_total"])
	}
	if m["vllm:time_to_first_token_seconds_count"] != 4 || m["vllm:inter_token_latency_seconds_count"] != 16 {
		t.Errorf("TTFT/ITL counts = %v/%v, want 4/16", m["vllm:time_to_first_token_seconds_count"], m["vllm:inter_token_latency_seconds_count"])
	}
	// vLLM's request intervals, one of each per request: queue + prefill is
	// the engine's TTFT, prefill + decode its inference time
	for _, n := range []string{"queue", "prefill", "decode", "inference"} {
		if c := m["vllm:request_"+n+"_time_seconds_count"]; c != 4 {
			t.Errorf("%s time count %v, want 4", n, c)
		}
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-6 }
	if q, p, ttft := m["vllm:request_queue_time_seconds_sum"], m["vllm:request_prefill_time_seconds_sum"], m["vllm:time_to_first_token_seconds_sum"]; !near(q+p, ttft) {
		t.Errorf("queue %v + prefill %v s, want the TTFT sum %v", q, p, ttft)
	}
	if p, d, inf := m["vllm:request_prefill_time_seconds_sum"], m["vllm:request_decode_time_seconds_sum"], m["vllm:request_inference_time_seconds_sum"]; !near(p+d, inf) || d <= 0 {
		t.Errorf("prefill %v + decode %v s, want the inference sum %v (decode above 0)", p, d, inf)
	}
}

// /metrics reports the cache configuration the server started with, as
// vLLM's vllm:cache_config_info does, so a scraper can check the flags.
func TestMetricsCacheConfigInfo(t *testing.T) {
	_, base := startSim(t, mustArgs(t, "--profile", "tiny", "--gpu-memory-utilization", "0.85", "--no-enable-prefix-caching"))
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	line := ""
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "vllm:cache_config_info{") {
			line = l
		}
	}
	for _, want := range []string{`gpu_memory_utilization="0.85"`, `enable_prefix_caching="False"`, `block_size="16"`, `num_gpu_blocks="`} {
		if !strings.Contains(line, want) {
			t.Errorf("vllm:cache_config_info line %q lacks %s", line, want)
		}
	}
	if !strings.HasSuffix(line, " 1") {
		t.Errorf("vllm:cache_config_info value is not 1: %q", line)
	}
}
