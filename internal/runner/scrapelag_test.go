package runner

import (
	"context"
	"net"
	"net/http"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/llmgate/llmgate/internal/progress/event"
	"github.com/llmgate/llmgate/internal/sim"
	"github.com/llmgate/llmgate/results"
)

// TestSlowMetricsDoNotDelaySends runs an open loop at 20 requests/s against
// the tiny simulator behind a /metrics that, once the run's requests have
// begun, answers only after the last measured request is done (or at the
// scrape's 2 s bound). The scrape that starts the measured phase must not
// hold up the dispatcher: the run's schedule lag p99 stays under 1 s and
// the scrape is recorded from the phase's start. When the dispatcher made
// that scrape itself, every send after it waited the 2 s bound (a 400 ms
// /metrics made lag p99 307-759 ms at 20 requests/s).
func TestSlowMetricsDoNotDelaySends(t *testing.T) {
	cfg, _, err := sim.ParseArgs([]string{"tiny", "--profile", "tiny"})
	if err != nil {
		t.Fatal(err)
	}
	simulator, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { simulator.Close() })
	var started, armed atomic.Bool // the run began; then its first request came
	release := make(chan struct{})
	var once sync.Once
	mux := http.NewServeMux()
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, r *http.Request) {
		if armed.Load() {
			select {
			case <-release:
			case <-r.Context().Done():
				return
			}
		}
		simulator.Handler().ServeHTTP(w, r)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if started.Load() && r.URL.Path == "/v1/completions" {
			armed.Store(true)
		}
		simulator.Handler().ServeHTTP(w, r)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	t.Cleanup(func() { once.Do(func() { close(release) }) })

	s := loadSuite(t, "openloop.hcl", nil)
	measured := 0
	rec := &recorder{hook: func(e event.Event) {
		switch e := e.(type) {
		case event.RunStarted:
			started.Store(true)
		case event.RequestDone:
			if !e.Record.Warmup {
				if measured++; measured == 40 {
					once.Do(func() { close(release) })
				}
			}
		}
	}}
	out := filepath.Join(t.TempDir(), "results.json")
	if _, err := Run(context.Background(), s, Options{OutputPath: out, TargetURL: "http://" + ln.Addr().String(), Progress: rec}); err != nil {
		t.Fatal(err)
	}
	f := readBack(t, out)
	r := f.Runs[0]
	if !armed.Load() {
		t.Fatal("the /metrics was never slowed: the test did not test anything")
	}
	lag := r.Summary.Client.ScheduleLagP99
	t.Logf("schedule lag p99 %.1f ms, %d requests, status %s; server series at %v ms", lag, r.Summary.Requests.Completed, r.Status, r.ServerSeries.TMS)
	if r.Status != results.StatusOK || r.Summary.Requests.Completed != 40 {
		t.Fatalf("run %s (%v), %d completed; want ok with 40", r.Status, r.InvalidReasons, r.Summary.Requests.Completed)
	}
	if lag >= 1000 {
		t.Errorf("schedule lag p99 %.1f ms, want under 1000 ms: the measured phase's scrape held up the sends", lag)
	}
	if ss := r.ServerSeries; ss == nil || len(ss.TMS) < 2 || ss.TMS[0] < 0 || ss.TMS[0] >= 1000 {
		t.Errorf("server series %+v; want the measured phase's first scrape recorded from its start", ss)
	}
}
