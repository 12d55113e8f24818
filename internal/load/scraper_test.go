package load

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/llmgate/llmgate/internal/fakeserver"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
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
	m, _ := s.Stop()
	if m == nil {
		t.Fatal("no server metrics")
	}
	if m.KVCacheUsageMax != 0.8 || m.RequestsWaitingMax != 8 || m.Preemptions != 4 {
		t.Errorf("got %+v, want kv max 0.8, waiting max 8 (7+1 across engines), preemptions 4", m)
	}
	if want := 500.0 / 1000; m.PrefixCacheHitRate == nil || *m.PrefixCacheHitRate != want {
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
	if m, _ := s.Stop(); m != nil {
		t.Errorf("got %+v from a server without /metrics, want nil", m)
	}
	// an unreachable server is no error either
	s = NewScraper("http://127.0.0.1:1", "", time.Hour)
	s.Start(context.Background())
	if m, _ := s.Stop(); m != nil {
		t.Errorf("got %+v from an unreachable server, want nil", m)
	}
}

// TestScraperStopsAfter404 checks a server without /metrics is asked once
// a run: not at the Restart, not after it, and the series says why.
func TestScraperStopsAfter404(t *testing.T) {
	srv := fakeserver.Start(t, fakeserver.Ollama("tiny", 8))
	s := NewScraper(srv.URL, "", time.Hour)
	s.Start(context.Background())
	s.Restart(context.Background())
	m, series := s.Stop()
	if m != nil {
		t.Errorf("server metrics %+v from a 404", m)
	}
	if n := srv.Hits(fakeserver.PathMetrics); n != 1 {
		t.Errorf("%d scrapes of a /metrics that answered 404, want 1", n)
	}
	if series.Failed != 1 || !strings.Contains(series.Error, "404") {
		t.Errorf("series failed %d, error %q; want 1 and the 404", series.Failed, series.Error)
	}
}

// TestScraperReadsOtherServers checks SGLang's and llama.cpp's pages give
// server metrics.
func TestScraperReadsOtherServers(t *testing.T) {
	for name, cfg := range map[string]fakeserver.Config{"sglang": fakeserver.SGLang("m", 4096), "llamacpp": fakeserver.LlamaCpp("m", 4096)} {
		srv := fakeserver.Start(t, cfg)
		s := NewScraper(srv.URL, "", time.Hour)
		s.Start(context.Background())
		if m, series := s.Stop(); m == nil || len(series.Running) != 2 {
			t.Errorf("%s: metrics %+v, %d scrapes; want metrics from 2 scrapes", name, m, len(series.Running))
		}
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
	m, _ := s.Stop()
	if m == nil {
		t.Fatal("no server metrics")
	}
	if m.Preemptions != 2 || m.KVCacheUsageMax != 0.4 {
		t.Errorf("preemptions %v, kv max %v; want 2 and 0.4 (the measured phase only)", m.Preemptions, m.KVCacheUsageMax)
	}
}

// TestRunCallsOnMeasureStart checks the hook runs once, after every user's
// first request ended and before the first measured request was sent.
func TestRunCallsOnMeasureStart(t *testing.T) {
	srv := newFakeServer(t)
	var called, sentBefore int
	cfg := Config{
		Load: runspec.Load{
			Concurrency: 2,
			Requests:    6,
			Warmup:      3,
			Workload:    runspec.Workload{Kind: runspec.WorkloadRandom, InputTokens: 8, OutputTokens: 4},
		},
		BaseURL: srv.URL(),
		Model:   "m",
	}
	cfg.OnMeasureStart = func() {
		called++
		sentBefore = len(srv.seen())
	}
	res, err := Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	warm := 0
	for _, r := range res.Records {
		if r.Warmup {
			warm++
		}
	}
	if warm < 3 || len(res.Records)-warm != 6 {
		t.Errorf("%d warmup and %d measured records, want at least 3 and 6", warm, len(res.Records)-warm)
	}
	// both users' first requests ended, and no measured one was sent yet
	if called != 1 || sentBefore < 2 || sentBefore > warm {
		t.Errorf("hook called %d times with %d requests seen by the server; want once, after the warmup (%d requests)", called, sentBefore, warm)
	}
}

// TestScraperKeepsSeries checks the time series: one entry per scrape,
// times from the (re)start, running and waiting requests, KV usage.
func TestScraperKeepsSeries(t *testing.T) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := calls.Add(1)
		fmt.Fprintf(w, "vllm:kv_cache_usage_perc{engine=\"0\"} %g\nvllm:num_requests_running{engine=\"0\"} %d\nvllm:num_requests_waiting{engine=\"0\"} %d\nvllm:num_preemptions_total{engine=\"0\"} %d\n", float64(i)/10, i, 2*i, 3*i)
	}))
	defer srv.Close()
	s := NewScraper(srv.URL, "", time.Hour)
	s.Start(context.Background()) // scrape 1, forgotten by the Restart
	s.Restart(context.Background())
	s.restarts.Wait() // the Restart's scrape (2) is answered before the next (3)
	s.scrape(context.Background())
	_, series := s.Stop()
	want := &results.ServerSeries{KVCacheUsage: []float64{0.2, 0.3, 0.4}, Running: []float64{2, 3, 4}, Waiting: []float64{4, 6, 8}, Preemptions: []float64{6, 9, 12}}
	if diff := cmp.Diff(want, series, cmpopts.IgnoreFields(results.ServerSeries{}, "TMS")); diff != "" {
		t.Errorf("series (-want +got):\n%s", diff)
	}
	if len(series.TMS) != 3 || series.TMS[0] < 0 || series.TMS[2] < series.TMS[0] {
		t.Errorf("times %v, want 3 non-decreasing offsets from the restart", series.TMS)
	}
}

// TestScraperBoundsEndlessMetrics runs a load against a server whose
// /metrics streams without end: the first scrape stops at MaxScrapeBytes,
// the failure is recorded, no scrape follows, the server gets to write a
// bounded amount, and the run's TTFT stays that of the server (20 ms).
func TestScraperBoundsEndlessMetrics(t *testing.T) {
	var written atomic.Int64
	line := []byte("# an endless comment line of a broken exporter, repeated forever and ever\n")
	// the fake server's completions, plus the endless /metrics
	f := &fakeServer{t: t, perChunk: 1, ttft: 20 * time.Millisecond, itl: time.Millisecond}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, r *http.Request) {
		for {
			n, err := w.Write(line)
			written.Add(int64(n))
			if err != nil {
				return
			}
		}
	})
	mux.HandleFunc("/", f.handle)
	f.srv = httptest.NewServer(mux)
	defer f.srv.Close()

	s := NewScraper(f.URL(), "", 0)
	s.Start(context.Background())
	cfg := Config{
		Load: runspec.Load{
			Concurrency: 2,
			Requests:    30,
			Workload:    runspec.Workload{Kind: runspec.WorkloadRandom, InputTokens: 8, OutputTokens: 4},
		},
		BaseURL: f.URL(),
		Model:   "m",
	}
	res, err := Run(context.Background(), cfg, nil)
	m, series := s.Stop()
	if err != nil {
		t.Fatal(err)
	}
	// one scrape fails for its size and ends the scraping (on a loaded
	// machine one before it may hit the time bound instead)
	if m != nil || series.Failed < 1 || series.Failed > 2 || !strings.Contains(series.Error, "larger than") {
		t.Errorf("metrics %+v, series failed %d (%q); want none, and scraping stopped after a scrape failed for its size", m, series.Failed, series.Error)
	}
	// each scrape reads MaxScrapeBytes+1 and closes; socket buffers hold a few MB more
	if w, bound := written.Load(), int64(series.Failed)*(MaxScrapeBytes+16<<20); w > bound {
		t.Errorf("the server wrote %d bytes for %d scrapes, want at most %d", w, series.Failed, bound)
	}
	var ttft []float64
	for _, r := range res.Records {
		ttft = append(ttft, float64(r.TTFT)/1e6)
	}
	sort.Float64s(ttft)
	med := ttft[len(ttft)/2]
	t.Logf("%d scrapes failed, %d MB written by the server; median TTFT %.2f ms (server 20 ms)", series.Failed, written.Load()>>20, med)
	if med < 20 || med > 35 {
		t.Errorf("median TTFT %.2f ms, want 20-35 ms (the server's 20 ms)", med)
	}
}

// TestScraperBoundsSlowMetrics checks that a /metrics that trickles ends at
// the scrape timeout and is recorded as failed.
func TestScraperBoundsSlowMetrics(t *testing.T) {
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fl := w.(http.Flusher)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-r.Context().Done():
				return
			case <-stop:
				return
			case <-tick.C:
				io.WriteString(w, "# slow\n")
				fl.Flush()
			}
		}
	}))
	defer srv.Close()
	defer close(stop)
	s := NewScraper(srv.URL, "", time.Hour)
	s.timeout = 200 * time.Millisecond
	t0 := time.Now()
	s.Start(context.Background())
	m, series := s.Stop()
	took := time.Since(t0)
	if m != nil || series.Failed != 2 || !strings.Contains(series.Error, "deadline") {
		t.Errorf("metrics %+v, %d failed (%q); want none, 2 failed on the deadline", m, series.Failed, series.Error)
	}
	if took > 5*time.Second {
		t.Errorf("two bounded scrapes took %v", took)
	}
}

// TestScraperRefusesNaN scrapes a loopback server whose /metrics gives the
// KV-cache usage as NaN and the waiting requests as +Inf: those are left
// out (absent, the series saying why), the running requests are read,
// and a results file holding the run is written and read back. A NaN on
// the page made every write of the results file fail ("json: unsupported
// value: NaN").
func TestScraperRefusesNaN(t *testing.T) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "vllm:kv_cache_usage_perc{engine=\"0\"} NaN\nvllm:num_requests_waiting{engine=\"0\"} +Inf\nvllm:num_requests_running{engine=\"0\"} %d\n", calls.Add(1))
	}))
	defer srv.Close()
	s := NewScraper(srv.URL, "", time.Hour)
	s.Start(context.Background())
	s.Restart(context.Background())
	m, series := s.Stop()
	if m == nil || m.KVCacheUsageMax != 0 || m.RequestsWaitingMax != 0 {
		t.Fatalf("server metrics %+v, want the NaN and +Inf left out", m)
	}
	if len(series.Running) != 2 || series.Running[1] != 3 || !strings.Contains(series.Refused, "vllm:kv_cache_usage_perc left out: a sample is NaN") ||
		!strings.Contains(series.Refused, "vllm:num_requests_waiting left out: a sample is +Inf") {
		t.Errorf("series %+v; want two scrapes of running, and both refusals said", series)
	}
	f := &results.File{Version: results.SchemaVersion, Runs: []results.Run{{Name: "chat", Scenario: "chat", Status: results.StatusOK,
		Summary: results.Summary{Server: m}, ServerSeries: series}}}
	path := filepath.Join(t.TempDir(), "results.json")
	if err := results.WriteFile(path, f); err != nil {
		t.Fatal(err)
	}
	back, err := results.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if back.Runs[0].ServerSeries.Refused != series.Refused {
		t.Errorf("refusal read back as %q, want %q", back.Runs[0].ServerSeries.Refused, series.Refused)
	}
}

// TestScraperServerSplit scrapes an exporter whose request-time histograms
// change by known observations between the "before" and the "after"
// scrape: the run's split is the window's (mean queue time 250 ms over 4
// requests, prefill 20 ms), and only the first and the last scrape keep
// their histograms.
func TestScraperServerSplit(t *testing.T) {
	page := func(queueSum, prefillSum float64, n int) string {
		var b strings.Builder
		for _, h := range []struct {
			name string
			sum  float64
		}{{"vllm:request_queue_time_seconds", queueSum}, {"vllm:request_prefill_time_seconds", prefillSum}} {
			// every observation below 0.3 s: all in vLLM's first bucket
			fmt.Fprintf(&b, "# TYPE %s histogram\n%s_bucket{le=\"0.3\",model_name=\"m\"} %d\n%s_bucket{le=\"0.5\",model_name=\"m\"} %d\n%s_bucket{le=\"+Inf\",model_name=\"m\"} %d\n%s_sum{model_name=\"m\"} %g\n%s_count{model_name=\"m\"} %d\n",
				h.name, h.name, n, h.name, n, h.name, n, h.name, h.sum, h.name, n)
		}
		b.WriteString("# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting{model_name=\"m\"} 1\n")
		return b.String()
	}
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) > 1 { // every scrape after the "before" one
			io.WriteString(w, page(2+1.0, 0.1+0.08, 6)) // 4 more: 1 s of queueing, 80 ms of prefill
			return
		}
		io.WriteString(w, page(2, 0.1, 2))
	}))
	defer srv.Close()
	s := NewScraper(srv.URL, "", time.Hour)
	s.Start(context.Background())
	s.scrape(context.Background())
	s.scrape(context.Background())
	s.mu.Lock()
	kept := 0
	for _, sn := range s.snaps {
		if sn.snap.Split != nil {
			kept++
		}
	}
	s.mu.Unlock()
	if kept != 2 {
		t.Errorf("%d scrapes keep their histograms, want 2 (the first and the last)", kept)
	}
	m, _ := s.Stop()
	if m == nil || m.QueueTime == nil || m.PrefillTime == nil {
		t.Fatalf("server metrics %+v: want a queue and a prefill time", m)
	}
	if q, p := m.QueueTime, m.PrefillTime; q.Requests != 4 || math.Abs(q.Mean-250) > 1e-9 || math.Abs(p.Mean-20) > 1e-9 || math.Abs(q.P50-150) > 1e-9 {
		t.Errorf("queue %+v, prefill %+v; want 4 requests, mean 250 ms, p50 150 ms (half the first bucket), prefill mean 20 ms", q, p)
	}
}
