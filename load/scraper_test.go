package load

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

func TestScraperMaximaAndDeltas(t *testing.T) {
	var calls atomic.Int64
	// three scrapes: before, one during, after (interval far longer than the test)
	pages := []struct{ kv, waiting, preempt, queries, hits float64 }{
		{0.10, 0, 5, 1000, 100},
		{0.80, 7, 6, 1500, 400},
		{0.30, 2, 9, 2000, 600},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" || r.Header.Get("Authorization") != "Bearer k" {
			http.NotFound(w, r)
			return
		}
		p := pages[min(int(calls.Add(1))-1, len(pages)-1)]
		fmt.Fprintf(w, `# HELP vllm:kv_cache_usage_perc KV-cache usage. 1 means 100 percent usage.
# TYPE vllm:kv_cache_usage_perc gauge
vllm:kv_cache_usage_perc{engine="0",model_name="m"} %g
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{engine="0",model_name="m"} %g
vllm:num_requests_waiting{engine="1",model_name="m"} 1
# TYPE vllm:num_preemptions_total counter
vllm:num_preemptions_total{engine="0",model_name="m"} %g
# TYPE vllm:prefix_cache_queries_total counter
vllm:prefix_cache_queries_total{engine="0",model_name="m"} %g
# TYPE vllm:prefix_cache_hits counter
vllm:prefix_cache_hits{engine="0",model_name="m"} %g
`, p.kv, p.waiting, p.preempt, p.queries, p.hits)
	}))
	defer srv.Close()

	s := NewScraper(srv.URL+"/", "k", time.Hour)
	s.Start(context.Background())
	s.scrape(context.Background()) // the "during" scrape, taken directly
	m := s.Stop()
	if m == nil {
		t.Fatal("no server metrics")
	}
	if m.KVCacheUsageMax != 0.8 || m.RequestsWaitingMax != 8 || m.Preemptions != 4 {
		t.Errorf("got %+v, want kv max 0.8, waiting max 8 (7+1 across engines), preemptions 4", m)
	}
	if want := 500.0 / 1000; m.PrefixCacheHitRate != want {
		t.Errorf("prefix hit rate %v, want %v (Δhits/Δqueries)", m.PrefixCacheHitRate, want)
	}
	if n := calls.Load(); n != 3 {
		t.Errorf("%d scrapes, want 3 (before, during, after)", n)
	}
}

func TestScraperWithoutMetricsIsNil(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	s := NewScraper(srv.URL, "", time.Hour)
	s.Start(context.Background())
	if m := s.Stop(); m != nil {
		t.Errorf("got %+v from a server without /metrics, want nil", m)
	}
	// an unreachable server is no error either
	s = NewScraper("http://127.0.0.1:1", "", time.Hour)
	s.Start(context.Background())
	if m := s.Stop(); m != nil {
		t.Errorf("got %+v from an unreachable server, want nil", m)
	}
}

// TestScraperRestartForgetsWarmup checks that Restart makes the scrape it
// takes the new "before": what happened earlier (the warmup) is not counted.
func TestScraperRestartForgetsWarmup(t *testing.T) {
	var calls atomic.Int64
	// before the warmup, after it (the Restart), after the run
	preempt := []float64{0, 10, 12}
	kv := []float64{0.9, 0.2, 0.4}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := min(int(calls.Add(1))-1, len(preempt)-1)
		fmt.Fprintf(w, "vllm:num_preemptions_total{engine=\"0\"} %g\nvllm:kv_cache_usage_perc{engine=\"0\"} %g\n", preempt[i], kv[i])
	}))
	defer srv.Close()
	s := NewScraper(srv.URL, "", time.Hour)
	s.Start(context.Background())
	s.Restart(context.Background())
	m := s.Stop()
	if m == nil {
		t.Fatal("no server metrics")
	}
	if m.Preemptions != 2 || m.KVCacheUsageMax != 0.4 {
		t.Errorf("preemptions %v, kv max %v; want 2 and 0.4 (the measured phase only)", m.Preemptions, m.KVCacheUsageMax)
	}
}

// TestRunCallsOnMeasureStart checks the hook runs once, after every warmup
// request ended and before the first measured request was sent.
func TestRunCallsOnMeasureStart(t *testing.T) {
	srv := newFakeServer(t)
	var called, sentBefore int
	cfg := Config{BaseURL: srv.URL(), Model: "m", Concurrency: 2, Requests: 6, Warmup: 3,
		Workload: Workload{Kind: WorkloadRandom, InputTokens: 8, OutputTokens: 4}}
	cfg.OnMeasureStart = func() {
		called++
		sentBefore = len(srv.seen())
	}
	res, err := Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if called != 1 || sentBefore != 3 {
		t.Errorf("hook called %d times with %d requests seen by the server; want once, after the 3 warmup requests", called, sentBefore)
	}
	if len(res.Records) != 9 {
		t.Errorf("%d records, want 9", len(res.Records))
	}
}
