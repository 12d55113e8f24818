package load

import (
	"context"
	"testing"

	"github.com/llmgate/llmgate/internal/fakeserver"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
)

// TestServerFeaturesSpareProbes checks what a server's probe found is not
// asked again each run: no /tokenize of a server without one, no token-id
// request to a server that refuses them.
func TestServerFeaturesSpareProbes(t *testing.T) {
	run := func(srv *fakeserver.Server, wl runspec.Workload, sf ServerFeatures) *Result {
		t.Helper()
		cfg := Config{Load: runspec.Load{Concurrency: 1, Requests: 4, Seed: 1, Workload: wl}, BaseURL: srv.URL, Model: "tiny", RunName: "r", Server: sf}
		res, err := Run(context.Background(), cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	ids := runspec.Workload{Kind: runspec.WorkloadRandom, InputTokens: 16, OutputTokens: 4}

	// token ids refused: without the probe's answer, one refused request
	// and two usage requests calibrate the text; with it, the two only
	srv := fakeserver.Start(t, fakeserver.Ollama("tiny", 100))
	res := run(srv, ids, ServerFeatures{})
	if n := srv.Hits(fakeserver.PathCompletions); n != 4+3 || res.Calibration.TextFallback == "" {
		t.Errorf("no probe: %d completion requests (want 4 + 3), fallback %q", n, res.Calibration.TextFallback)
	}
	srv = fakeserver.Start(t, fakeserver.Ollama("tiny", 100))
	res = run(srv, ids, ServerFeatures{TokenIDsRefused: "http 400: prompt must be a string", NoTokenize: true})
	if n := srv.Hits(fakeserver.PathCompletions); n != 4+2 || res.Calibration.TextFallback != "http 400: prompt must be a string" {
		t.Errorf("probed: %d completion requests (want 4 + 2), fallback %q", n, res.Calibration.TextFallback)
	}
	if n := srv.Hits(fakeserver.PathTokenize); n != 0 {
		t.Errorf("/tokenize asked %d times of a server whose probe found none", n)
	}

	// a server with /tokenize told it has none calibrates by usage
	c := fakeserver.VLLM("tiny", 4096)
	srv = fakeserver.Start(t, c)
	res = run(srv, runspec.Workload{Kind: runspec.WorkloadRandom, InputTokens: 16, OutputTokens: 4, Chat: true}, ServerFeatures{NoTokenize: true})
	if n := srv.Hits(fakeserver.PathTokenize); n != 0 || res.Calibration.Method != results.CalibratedUsage {
		t.Errorf("/tokenize asked %d times, calibration %q; want 0 and usage", n, res.Calibration.Method)
	}
}
