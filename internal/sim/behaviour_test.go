package sim

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Throughput rises with concurrency up to the batch limit and then
// saturates, while TTFT climbs steeply once requests queue.
func TestConcurrencyKnee(t *testing.T) {
	// Steps 4x the tiny profile's (~8 ms): the client's own work under -race
	// on a busy machine then stays small beside them, so throughput is the
	// engine's, not the client's.
	_, url := startSim(t, mustArgs(t, "--profile", "tiny", "--max-num-seqs", "8", "--slowdown", "4"))
	url += "/v1/completions"
	type point struct {
		tput float64
		ttft time.Duration
	}
	run := func(conc, n int) point {
		rs, wall := load(t, url, conc, n, func(i int) any { return completion(promptIDs(i, 32), 24) })
		return point{float64(outputTokens(rs)) / wall.Seconds(), percentile(ttfts(rs), 0.5)}
	}
	c1, c4, c8, c32 := run(1, 8), run(4, 16), run(8, 32), run(32, 64)
	t.Logf("tokens/s: c1=%.0f c4=%.0f c8=%.0f c32=%.0f; median TTFT: c4=%v c32=%v", c1.tput, c4.tput, c8.tput, c32.tput, c4.ttft, c32.ttft)
	if c8.tput < 3*c1.tput {
		t.Errorf("throughput at concurrency 8 (%.0f tok/s) should be > 3x that at 1 (%.0f tok/s)", c8.tput, c1.tput)
	}
	if c32.tput > 1.6*c8.tput {
		t.Errorf("throughput should saturate past --max-num-seqs 8: c32 %.0f tok/s vs c8 %.0f tok/s", c32.tput, c8.tput)
	}
	if c32.ttft < 3*c4.ttft {
		t.Errorf("median TTFT at concurrency 32 (%v) should be > 3x that at 4 (%v)", c32.ttft, c4.ttft)
	}
}

// scrape reads /metrics into families.
func scrape(t testing.TB, base string) map[string]float64 {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatalf("scrape: %v", err)
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	out := map[string]float64{}
	for name, f := range fams {
		for _, m := range f.Metric {
			switch {
			case m.Counter != nil:
				out[name] += m.Counter.GetValue()
			case m.Gauge != nil:
				out[name] += m.Gauge.GetValue()
			case m.Histogram != nil:
				out[name+"_count"] += float64(m.Histogram.GetSampleCount())
				out[name+"_sum"] += m.Histogram.GetSampleSum()
			}
		}
	}
	return out
}

// watchWaiting polls /metrics until stop closes and returns the mean of
// vllm:num_requests_waiting over its samples.
func watchWaiting(t testing.TB, base string, stop <-chan struct{}) <-chan float64 {
	out := make(chan float64, 1)
	go func() {
		sum, n := 0.0, 0
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				out <- sum / float64(max(n, 1))
				return
			case <-tick.C:
				resp, err := http.Get(base + "/metrics")
				if err != nil {
					continue
				}
				p := expfmt.NewTextParser(model.LegacyValidation)
				fams, err := p.TextToMetricFamilies(resp.Body)
				resp.Body.Close()
				if err == nil && fams["vllm:num_requests_waiting"] != nil {
					sum += fams["vllm:num_requests_waiting"].Metric[0].Gauge.GetValue()
					n++
				}
			}
		}
	}()
	return out
}

// Less GPU memory means fewer sequences fit: more waiting and preemptions,
// as /metrics shows (vllm:num_preemptions_total, and the time requests spent
// waiting, vllm:request_queue_time_seconds).
func TestGPUMemoryUtilization(t *testing.T) {
	run := func(util string) (preempt, queued, waiting float64) {
		_, base := startSim(t, mustArgs(t, "--profile", "tiny", "--gpu-memory-utilization", util))
		stop := make(chan struct{})
		w := watchWaiting(t, base, stop)
		load(t, base+"/v1/completions", 20, 40, func(i int) any { return completion(promptIDs(i, 100), 60) })
		close(stop)
		m := scrape(t, base)
		return m["vllm:num_preemptions_total"], m["vllm:request_queue_time_seconds_sum"], <-w
	}
	hiP, hiQ, hiW := run("0.9")
	loP, loQ, loW := run("0.75")
	t.Logf("util 0.9: preemptions=%v queue time=%.3fs mean waiting=%.1f; util 0.75: preemptions=%v queue time=%.3fs mean waiting=%.1f", hiP, hiQ, hiW, loP, loQ, loW)
	if loP <= hiP {
		t.Errorf("preemptions at 0.75 (%v) should exceed those at 0.9 (%v)", loP, hiP)
	}
	if loQ <= 1.5*hiQ {
		t.Errorf("total queue time at 0.75 (%.3fs) should well exceed that at 0.9 (%.3fs)", loQ, hiQ)
	}
}

// A shared prefix is served from the prefix cache: lower TTFT and hits in
// /metrics; with caching off there are no hits.
func TestPrefixCaching(t *testing.T) {
	shared := promptIDs(99, 480)
	body := func(i int) any {
		return completion(append(append([]int(nil), shared...), promptIDs(i, 16)...), 4)
	}
	run := func(args ...string) (time.Duration, map[string]float64) {
		_, base := startSim(t, mustArgs(t, append([]string{"--profile", "tiny"}, args...)...))
		rs, _ := load(t, base+"/v1/completions", 1, 12, body)
		return percentile(ttfts(rs[1:]), 0.5), scrape(t, base)
	}
	onTTFT, on := run()
	offTTFT, off := run("--no-enable-prefix-caching")
	t.Logf("median TTFT with caching %v, without %v; hits %v of %v queried", onTTFT, offTTFT, on["vllm:prefix_cache_hits_total"], on["vllm:prefix_cache_queries_total"])
	if onTTFT*2 > offTTFT {
		t.Errorf("median TTFT with prefix caching (%v) should be under half that without (%v)", onTTFT, offTTFT)
	}
	if on["vllm:prefix_cache_hits_total"] <= 0 {
		t.Errorf("prefix cache hits = %v, want > 0", on["vllm:prefix_cache_hits_total"])
	}
	if off["vllm:prefix_cache_hits_total"] != 0 {
		t.Errorf("prefix cache hits without caching = %v, want 0", off["vllm:prefix_cache_hits_total"])
	}
}

const testSchema = `{
  "type": "object",
  "properties": {
    "name": {"type": "string", "minLength": 2, "maxLength": 40},
    "age": {"type": "integer", "minimum": 0, "maximum": 120},
    "email": {"type": "string", "format": "email"},
    "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 4},
    "address": {"$ref": "#/$defs/address"},
    "status": {"enum": ["active", "inactive"]},
    "score": {"type": ["number", "null"], "minimum": 0, "maximum": 1}
  },
  "required": ["name", "age", "tags", "address"],
  "additionalProperties": false,
  "$defs": {"address": {"type": "object", "properties": {"city": {"type": "string"}, "zip": {"type": "integer"}}, "required": ["city"]}}
}`

// Structured output costs more per token than plain output, and every
// answer validates against its schema.
func TestStructuredOutput(t *testing.T) {
	_, base := startSim(t, mustArgs(t, "--profile", "tiny"))
	var schema map[string]any
	if err := json.Unmarshal([]byte(testSchema), &schema); err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("schema.json", schema); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var structTPOT, plainTPOT []time.Duration
	for i := 0; i < 6; i++ {
		prompt := fmt.Sprintf("Describe person %d as JSON.", i)
		body := map[string]any{
			"messages":       []map[string]string{{"role": "user", "content": prompt}},
			"stream":         true,
			"stream_options": map[string]any{"include_usage": true},
			"seed":           i,
		}
		switch i % 3 {
		case 0:
			body["response_format"] = map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "person", "schema": schema}}
		case 1:
			body["structured_outputs"] = map[string]any{"json": schema}
		case 2:
			body["response_format"] = map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "person", "schema": testSchema}}
		}
		r, err := stream(context.Background(), base+"/v1/chat/completions", body)
		if err != nil || r.status != 200 {
			t.Fatalf("structured request %d: %v %s", i, err, r.errBody)
		}
		if r.finish != "stop" {
			t.Errorf("request %d: finish_reason %q, want stop", i, r.finish)
		}
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(r.text))
		if err != nil {
			t.Fatalf("request %d: answer is not JSON: %v\n%s", i, err, r.text)
		}
		if err := sch.Validate(inst); err != nil {
			t.Errorf("request %d: answer does not validate: %v\n%s", i, err, r.text)
		}
		n := r.usage.CompletionTokens
		structTPOT = append(structTPOT, r.tpot(n))
		// The same length as plain text.
		plain, err := stream(context.Background(), base+"/v1/completions", completion(promptIDs(i, 20), n))
		if err != nil || plain.status != 200 {
			t.Fatalf("plain request %d: %v %s", i, err, plain.errBody)
		}
		plainTPOT = append(plainTPOT, plain.tpot(n))
	}
	s, p := percentile(structTPOT, 0.5), percentile(plainTPOT, 0.5)
	t.Logf("median TPOT structured %v, plain %v", s, p)
	if float64(s) < 1.2*float64(p) {
		t.Errorf("structured TPOT %v should be > 1.2x plain TPOT %v", s, p)
	}

	// json_object answers are JSON objects.
	r, err := stream(context.Background(), base+"/v1/completions", map[string]any{
		"prompt": "json please", "max_tokens": 200, "stream": true, "response_format": map[string]any{"type": "json_object"}})
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(r.text), &obj); err != nil {
		t.Errorf("json_object answer is not a JSON object: %v\n%s", err, r.text)
	}
}

// --slowdown 1.2 makes every step, so every request, about 20% slower.
// This uses the default H100 profile, whose ~7 ms steps make scheduling
// noise small. The engine keeps an absolute schedule (a late step is made
// up by the next ones), so a request's whole latency is steadier on a busy
// machine than its TPOT, which a catch-up after a late first token can
// shrink below the model's; the median of 9 requests, asked of the two
// servers in turn so that a busy spell falls on both alike, is compared.
// It holds a timing to a few percent in real time: the full run's.
func TestSlowdown(t *testing.T) {
	if testing.Short() {
		t.Skip("timing accuracy in real time (about 6 s): the full run's")
	}
	_, base := startSim(t, mustArgs(t))
	_, slow := startSim(t, mustArgs(t, "--slowdown", "1.2"))
	const rounds = 9
	e2el := func(url string, i int) time.Duration {
		r, err := stream(context.Background(), url+"/v1/completions", completion(promptIDs(i, 16), 40))
		if err != nil || r.status != 200 {
			t.Fatalf("request %d to %s: %v %s", i, url, err, r.errBody)
		}
		return r.e2e
	}
	var baseE2EL, slowE2EL []time.Duration
	for i := range rounds {
		baseE2EL = append(baseE2EL, e2el(base, i))
		slowE2EL = append(slowE2EL, e2el(slow, i))
	}
	b, s := percentile(baseE2EL, 0.5), percentile(slowE2EL, 0.5)
	ratio := float64(s) / float64(b)
	t.Logf("median E2EL of %d requests %v, with --slowdown 1.2 %v (x%.3f)", rounds, b, s, ratio)
	if ratio < 1.1 || ratio > 1.32 {
		t.Errorf("E2EL ratio with --slowdown 1.2 = %.3f, want about 1.2", ratio)
	}
}

// The same --seed and request give the same tokens; another seed does not.
func TestSeedDeterminism(t *testing.T) {
	answer := func(seed string, body map[string]any) string {
		_, base := startSim(t, mustArgs(t, "--profile", "tiny", "--seed", seed))
		r, err := stream(context.Background(), base+"/v1/chat/completions", body)
		if err != nil || r.status != 200 {
			t.Fatalf("%v %s", err, r.errBody)
		}
		return r.text
	}
	body := map[string]any{"messages": []map[string]string{{"role": "user", "content": "Tell me a story."}}, "max_tokens": 40, "stream": true}
	a, b, c := answer("7", body), answer("7", body), answer("8", body)
	if a != b {
		t.Errorf("same seed, same request, different answers:\n%q\n%q", a, b)
	}
	if a == c {
		t.Errorf("seeds 7 and 8 gave the same answer %q", a)
	}
	body["seed"] = 42
	if answer("7", body) == a {
		t.Errorf("a request seed should change the answer")
	}
}

// Closing the server ends streams in flight with an error event, not a hang.
func TestCloseEndsStreams(t *testing.T) {
	s, base := startSim(t, mustArgs(t, "--profile", "tiny"))
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := stream(context.Background(), base+"/v1/completions", completion(promptIDs(i, 16), 900))
			errs <- err
		}()
	}
	waitFor(t, s, "the streams to start", func(st Snapshot) bool { return st.GenTokens >= 8 })
	s.Close()
	wg.Wait()
	close(errs)
	for err := range errs {
		if err == nil || !strings.Contains(err.Error(), "shut down") {
			t.Errorf("stream after Close: err = %v, want the shutdown error event", err)
		}
	}
}

// POST /reset_prefix_cache forgets cached prefixes: the same prompts sent
// again after a reset find no hits, while without the reset they all hit.
func TestResetPrefixCache(t *testing.T) {
	_, base := startSim(t, mustArgs(t, "--profile", "tiny"))
	body := func(i int) any { return completion(promptIDs(1000+i, 256), 2) }
	hits := func() float64 { return scrape(t, base)["vllm:prefix_cache_hits_total"] }
	reset := func() int {
		resp, err := http.Post(base+"/reset_prefix_cache", "application/json", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	load(t, base+"/v1/completions", 2, 4, body)
	h0 := hits()
	load(t, base+"/v1/completions", 2, 4, body)
	h1 := hits()
	if code := reset(); code != http.StatusOK {
		t.Fatalf("reset_prefix_cache answered %d, want 200", code)
	}
	load(t, base+"/v1/completions", 2, 4, body)
	h2 := hits()
	t.Logf("hits: first pass %v, repeat %v, repeat after reset %v", h0, h1-h0, h2-h1)
	if h1-h0 < 4*240 {
		t.Errorf("repeating 4 prompts of 256 tokens hit %v tokens, want at least %d", h1-h0, 4*240)
	}
	if h2 != h1 {
		t.Errorf("after a reset the same prompts hit %v tokens, want 0", h2-h1)
	}
}

// syncBuffer is a log the server writes and the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestResetPrefixCacheWhileBusy checks a reset asked while a request holds
// KV blocks answers 200, as vLLM's does, but keeps the cache and says so
// in the log only (vLLM's "Failed to reset prefix cache because some
// blocks (N) are not freed yet").
func TestResetPrefixCacheWhileBusy(t *testing.T) {
	cfg := mustArgs(t, "--profile", "tiny")
	var log syncBuffer
	cfg.Log = &log
	_, base := startSim(t, cfg)
	hits := func() float64 { return scrape(t, base)["vllm:prefix_cache_hits_total"] }
	cached := func(i int) any { return completion(promptIDs(7, 128), 1) }
	load(t, base+"/v1/completions", 1, 1, cached) // cache the prompt
	// a long answer holds its blocks while the reset is asked
	raw, _ := json.Marshal(completion(promptIDs(8, 64), 400))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/v1/completions", bytes.NewReader(raw))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if _, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil { // its first chunk: it runs
		t.Fatal(err)
	}
	r, err := http.Post(base+"/reset_prefix_cache", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusOK {
		t.Errorf("reset while busy answered %d, want 200 as vLLM does", r.StatusCode)
	}
	cancel()
	h0 := hits()
	load(t, base+"/v1/completions", 1, 1, cached)
	if h := hits() - h0; h < 112 {
		t.Errorf("the prompt cached before the refused reset hit %v tokens after it, want its 7 full blocks (112)", h)
	}
	if !strings.Contains(log.String(), "Failed to reset prefix cache because some blocks (") {
		t.Errorf("log lacks vLLM's warning:\n%s", log.String())
	}
}

// The cache refuses a reset while a request holds blocks, like vLLM.
func TestKVCacheResetRefusedWhileInUse(t *testing.T) {
	c := newKVCache(8, 16, true)
	table, ok := c.alloc(2, nil)
	if !ok {
		t.Fatal("alloc failed")
	}
	c.commit(table[0], 42)
	if ok, n := c.reset(); ok || n != 2 {
		t.Errorf("reset while 2 blocks are in use: ok %v, %d in use", ok, n)
	}
	c.release(table)
	if ok, _ := c.reset(); !ok {
		t.Error("reset refused with no block in use")
	}
	if c.lookup([]uint64{42}) != 0 {
		t.Error("the prefix is still cached after a reset")
	}
}

// TestCompletionsDefaultMaxTokensInContext checks a completions request
// without max_tokens counts vLLM's default of 16 against the context: a
// prompt of 1010 tokens in the tiny profile's 1024 is refused, as vLLM
// refuses it; one of 1008 fits.
func TestCompletionsDefaultMaxTokensInContext(t *testing.T) {
	_, base := startSim(t, mustArgs(t, "--profile", "tiny"))
	for n, want := range map[int]int{1010: http.StatusBadRequest, 1008: http.StatusOK} {
		raw, _ := json.Marshal(map[string]any{"prompt": promptIDs(3, n)})
		resp, err := http.Post(base+"/v1/completions", "application/json", bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("%d-token prompt without max_tokens: %d, want %d", n, resp.StatusCode, want)
		}
	}
}

// TestGuidedJSONIgnored checks a request with the removed guided_json
// field is answered as plain text, as vLLM from v0.12.0 answers it, while
// structured_outputs.json still constrains the answer.
func TestGuidedJSONIgnored(t *testing.T) {
	_, base := startSim(t, mustArgs(t, "--profile", "tiny", "--seed", "3"))
	schema := map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "integer"}}, "required": []string{"a"}}
	ask := func(extra map[string]any) string {
		body := map[string]any{"messages": []map[string]string{{"role": "user", "content": "json please"}}, "max_tokens": 24}
		for k, v := range extra {
			body[k] = v
		}
		raw, _ := json.Marshal(body)
		resp, err := http.Post(base+"/v1/chat/completions", "application/json", bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out struct {
			Choices []struct {
				Message struct{ Content string } `json:"message"`
			} `json:"choices"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != 200 {
			t.Fatalf("status %d, %v", resp.StatusCode, err)
		}
		return out.Choices[0].Message.Content
	}
	if got := ask(map[string]any{"guided_json": schema}); json.Valid([]byte(got)) {
		t.Errorf("guided_json was honoured: %q", got)
	}
	if got := ask(map[string]any{"structured_outputs": map[string]any{"json": schema}}); !json.Valid([]byte(got)) {
		t.Errorf("structured_outputs.json gave %q, not JSON", got)
	}
}
