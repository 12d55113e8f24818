package runner

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/internal/fakeserver"
	"github.com/llmgate/llmgate/internal/progress/event"
	"github.com/llmgate/llmgate/results"
)

// TestServerDiscoveredOnce runs three runs against an Ollama-like server: it
// is probed once, its missing /metrics, /tokenize and /reset_prefix_cache
// are not asked again by any run, and every run records what was missing.
func TestServerDiscoveredOnce(t *testing.T) {
	srv := fakeserver.Start(t, fakeserver.Ollama("tiny", 100))
	s := loadSuite(t, "twochats.hcl", nil)
	rec := &recorder{}
	f, err := Run(context.Background(), s, Options{OutputPath: filepath.Join(t.TempDir(), "r.json"), TargetURL: srv.URL + "/v1", TargetModel: "tiny", Progress: rec})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	for _, p := range []string{fakeserver.PathMetrics, fakeserver.PathTokenize, fakeserver.PathReset} {
		if n := srv.Hits(p); n > 2 { // the probe asks /tokenize once with text; nothing else asks
			t.Errorf("%s asked %d times in 3 runs", p, n)
		}
	}
	if n := srv.Hits(fakeserver.PathMetrics); n != 1 {
		t.Errorf("/metrics asked %d times, want once (the probe)", n)
	}
	probed := 0
	rec.mu.Lock()
	events := append([]event.Event(nil), rec.events...)
	rec.mu.Unlock()
	for _, e := range events {
		if p, ok := e.(event.ServerDiscovered); ok {
			probed++
			if len(p.Missing) == 0 {
				t.Error("ServerDiscovered lists nothing missing")
			}
		}
	}
	if probed != 1 {
		t.Errorf("%d ServerDiscovered events, want 1", probed)
	}
	for _, r := range f.Runs {
		if r.Status == results.StatusFailed {
			t.Errorf("%s failed: %s", r.Name, r.Error)
		}
		var names []string
		for _, m := range r.MissingFeatures {
			names = append(names, m.Feature)
		}
		if got := strings.Join(names, ","); !strings.Contains(got, "/metrics,/reset_prefix_cache,/tokenize,token-id prompts") {
			t.Errorf("%s: missing features %q", r.Name, got)
		}
		if r.PrefixCache == nil || r.PrefixCache.Done || !strings.Contains(r.PrefixCache.Reason, "probe") {
			t.Errorf("%s: prefix cache %+v, want not done, as found by the probe", r.Name, r.PrefixCache)
		}
		if r.ServerSeries != nil {
			t.Errorf("%s: a server without /metrics has a series %+v", r.Name, r.ServerSeries)
		}
	}
	if f.Environment.Model != "tiny:latest" {
		t.Errorf("model recorded %q, want the served name tiny:latest", f.Environment.Model)
	}
}

// TestRunRefusesContextOverflow checks runs that need more tokens than the
// served model's max_model_len fail before their first request, naming
// the limit.
func TestRunRefusesContextOverflow(t *testing.T) {
	srv := fakeserver.Start(t, fakeserver.VLLM("m", 20))
	s := loadSuite(t, "twochats.hcl", nil)
	f, err := Run(context.Background(), s, Options{TargetURL: srv.URL})
	if err == nil {
		t.Fatal("no error")
	}
	for _, r := range f.Runs {
		if r.Status != results.StatusFailed || !strings.Contains(r.Error.Raw(), "need up to 36 tokens (input 32 + output 4 tokens) but the model's context is 20 tokens (max_model_len in /v1/models)") {
			t.Errorf("%s: %s: %s", r.Name, r.Status, r.Error)
		}
	}
	if n := srv.Hits(fakeserver.PathChat); n > 1 { // the probe's chat check only
		t.Errorf("%d chat requests sent", n)
	}
}
