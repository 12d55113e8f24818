package load

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/llmgate/llmgate/internal/sim"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
)

// startSim serves the simulator's tiny profile on loopback; without
// /tokenize when noTokenize.
func startSim(t *testing.T, noTokenize bool) string {
	t.Helper()
	cfg, _, err := sim.ParseArgs([]string{"--profile", "tiny"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h := s.Handler()
	if noTokenize {
		inner := h
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/tokenize" {
				http.NotFound(w, r)
				return
			}
			inner.ServeHTTP(w, r)
		})
	}
	hs := httptest.NewServer(h)
	t.Cleanup(func() {
		s.Close()
		hs.Close()
	})
	return hs.URL
}

// meanInput is the mean usage.prompt_tokens of a run's measured requests.
func meanInput(t *testing.T, res *Result) float64 {
	t.Helper()
	a, _ := res.Analyze(Config{}, results.SummarizeOptions{})
	if a.Summary.Requests.Failed > 0 || a.Summary.Requests.Completed == 0 {
		t.Fatalf("%d failed, %d completed: %v", a.Summary.Requests.Failed, a.Summary.Requests.Completed, a.Requests.Failures)
	}
	return float64(a.Summary.InputTokens) / float64(a.Summary.Requests.Completed)
}

// Every prompt path lands within ±2 % of input_tokens on the simulator,
// whose chat template and tokenizer make text prompts longer than their
// word count: token ids, text on /v1/completions, chat and structured.
func TestPromptLengthsMatchInputTokens(t *testing.T) {
	url, plain := startSim(t, false), startSim(t, true)
	const in = 256
	for _, tc := range []struct {
		name   string
		wl     runspec.Workload
		method results.CalibrationMethod
		bound  float64
	}{
		{"completions ids", runspec.Workload{Kind: runspec.WorkloadRandom}, results.CalibratedTokenIDs, 0.02},
		{"completions text", runspec.Workload{Kind: runspec.WorkloadRandom, TextPrompts: true}, results.CalibratedTokenize, 0.02},
		{"chat", runspec.Workload{Kind: runspec.WorkloadRandom, Chat: true}, results.CalibratedTokenize, 0.02},
		{"structured", runspec.Workload{Kind: runspec.WorkloadStructured}, results.CalibratedTokenize, 0.02},
		// without /tokenize, a fit of usage over whole passes through the
		// words, and prompts dealt from them like a deck (over 30 seeds
		// on these three paths the worst run was 1.7 % off)
		{"chat by usage", runspec.Workload{Kind: runspec.WorkloadRandom, Chat: true}, results.CalibratedUsage, 0.02},
		{"structured by usage", runspec.Workload{Kind: runspec.WorkloadStructured}, results.CalibratedUsage, 0.02},
		{"completions text by usage", runspec.Workload{Kind: runspec.WorkloadRandom, TextPrompts: true}, results.CalibratedUsage, 0.02},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.wl.InputTokens, tc.wl.OutputTokens = in, 4
			base := url
			if tc.method == results.CalibratedUsage {
				base = plain
			}
			cfg := Config{Load: runspec.Load{Concurrency: 4, Requests: 16, Workload: tc.wl}, BaseURL: base, Model: "llmgate/tiny-sim", RunName: tc.name}
			res, err := Run(context.Background(), cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := meanInput(t, res)
			t.Logf("%s: requested %d input tokens, server counted %.1f (%+.2f%%); calibration %+v", tc.name, in, got, 100*(got/in-1), res.Calibration)
			if got < in*(1-tc.bound) || got > in*(1+tc.bound) {
				t.Errorf("mean prompt %.1f tokens, want %d ± %.0f%%", got, in, 100*tc.bound)
			}
			if res.Calibration.Method != tc.method {
				t.Errorf("calibration method %q, want %q", res.Calibration.Method, tc.method)
			}
		})
	}
}

// A server that refuses token-id prompts with a 400 gets text instead, and
// the run says so; without /tokenize the calibration reads usage.
func TestTokenIDsRefusedFallsBackToText(t *testing.T) {
	f := newFakeServer(t)
	refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var b struct {
			Prompt any `json:"prompt"`
		}
		json.Unmarshal(raw, &b)
		if _, ids := b.Prompt.([]any); ids {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error":{"message":"prompt must be a string","code":400}}`)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(raw))
		f.handle(w, r)
	}))
	defer refusing.Close()
	cfg := Config{
		Load: runspec.Load{
			Concurrency: 2,
			Requests:    6,
			Workload:    runspec.Workload{Kind: runspec.WorkloadRandom, InputTokens: 32, OutputTokens: 2},
		},
		BaseURL: refusing.URL,
		Model:   "m",
	}
	res, err := Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := meanInput(t, res); got < 32*0.98 || got > 32*1.02 {
		t.Errorf("mean prompt %.1f tokens, want 32 ± 2%%", got)
	}
	if c := res.Calibration; c.TextFallback == "" || c.Method != results.CalibratedUsage {
		t.Errorf("calibration %+v, want a text fallback calibrated by usage", c)
	}
	for _, b := range f.seen() {
		if _, ok := b["prompt"].(string); !ok {
			t.Fatalf("a run request sent prompt %v, want text", b["prompt"])
		}
	}
}
