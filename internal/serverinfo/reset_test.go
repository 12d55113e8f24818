package serverinfo

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/llmgate/llmgate/internal/fakeserver"
)

func reset(t *testing.T, srv *fakeserver.Server, probe bool) (done bool, reason, unverified string) {
	t.Helper()
	o := Options{BaseURL: srv.URL, Model: "m"}
	var f *Features
	if probe {
		f = Discover(context.Background(), o)
	}
	r := ResetPrefixCache(context.Background(), o, f)
	return r.Done, r.Reason, r.Unverified
}

func TestResetPrefixCache(t *testing.T) {
	// a vLLM-like server with counters: reset, and checked
	srv := fakeserver.Start(t, fakeserver.VLLM("m", 4096))
	if done, reason, unv := reset(t, srv, true); !done || unv != "" {
		t.Errorf("vLLM-like: done %v, reason %q, unverified %q; want done and verified", done, reason, unv)
	}
	if d, _ := srv.Resets(); d != 2 { // the probe's, then the run's
		t.Errorf("%d resets, want 2", d)
	}

	// a server that answers 200 and keeps its cache: caught by the check
	c := fakeserver.VLLM("m", 4096)
	c.ResetIgnored = true
	srv = fakeserver.Start(t, c)
	if done, reason, _ := reset(t, srv, false); done || !strings.Contains(reason, "answered 200 but did not reset: a prompt cached before the reset hit 64 cached tokens") {
		t.Errorf("a reset that was not made: done %v, reason %q", done, reason)
	}

	// no /metrics: made, but unverified
	c = fakeserver.VLLM("m", 4096)
	c.Missing = []string{fakeserver.PathMetrics}
	srv = fakeserver.Start(t, c)
	if done, _, unv := reset(t, srv, true); !done || !strings.Contains(unv, "no prefix-cache counters") {
		t.Errorf("no /metrics: done %v, unverified %q", done, unv)
	}

	// no endpoint, found by the probe: not asked again
	srv = fakeserver.Start(t, fakeserver.Ollama("m", 8))
	if done, reason, _ := reset(t, srv, true); done || !strings.Contains(reason, "http 404, found by the server's probe") {
		t.Errorf("no endpoint: done %v, reason %q", done, reason)
	}
	if n := srv.Hits(fakeserver.PathReset); n != 1 {
		t.Errorf("/reset_prefix_cache asked %d times, want once (the probe)", n)
	}
}

// TestResetWaitsForIdle checks no reset is made while a request is in
// flight (vLLM would answer 200 and not reset).
func TestResetWaitsForIdle(t *testing.T) {
	defer func(d time.Duration) { resetIdleWait = d }(resetIdleWait)
	resetIdleWait = 300 * time.Millisecond
	c := fakeserver.VLLM("m", 4096)
	c.TTFT = 5 * time.Second
	inFlight := make(chan struct{})
	c.OnGenerate = func() { close(inFlight) }
	srv := fakeserver.Start(t, c)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/v1/completions", strings.NewReader(`{"model":"m","prompt":"a","max_tokens":1}`))
		if resp, err := http.DefaultClient.Do(req); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
	<-inFlight
	r := ResetPrefixCache(context.Background(), Options{BaseURL: srv.URL, Model: "m"}, nil)
	if r.Done || !strings.Contains(r.Reason, "1 request(s) still in flight") {
		t.Errorf("reset with a request in flight: %+v", r)
	}
	if d, ig := srv.Resets(); d != 0 || ig != 0 {
		t.Errorf("resets %d done, %d ignored; want none asked", d, ig)
	}
}
