package serverinfo

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/llmgate/llmgate/internal/fakeserver"
	"github.com/llmgate/llmgate/internal/hostile"
	"github.com/llmgate/llmgate/internal/sim"
	"github.com/llmgate/llmgate/internal/telemetry"
)

func TestBaseURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:11434/v1":    "http://127.0.0.1:11434",
		"http://127.0.0.1:11434/v1/":   "http://127.0.0.1:11434",
		"https://gw.example/openai/v1": "https://gw.example/openai",
		"http://h:8000/":               "http://h:8000",
		"http://h:8000":                "http://h:8000",
	} {
		if got, err := BaseURL(in); err != nil || got != want {
			t.Errorf("BaseURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"127.0.0.1:8000", "ftp://h", "http://"} {
		if _, err := BaseURL(bad); err == nil {
			t.Errorf("BaseURL(%q) took it", bad)
		}
	}
}

func TestFind(t *testing.T) {
	ms := []Model{{ID: "tiny:latest"}, {ID: "alias", Root: "meta-llama/Llama-3.1-8B-Instruct"}, {ID: "other"}}
	for want, exp := range map[string][2]string{
		"tiny":                             {"tiny:latest", MatchLatest},
		"tiny:latest":                      {"tiny:latest", MatchID},
		"meta-llama/Llama-3.1-8B-Instruct": {"alias", MatchRoot},
		"other":                            {"other", MatchID},
	} {
		m, how, ok := Find(ms, want)
		if !ok || m.ID != exp[0] || how != exp[1] {
			t.Errorf("Find(%q) = %q %q %v, want %q %q", want, m.ID, how, ok, exp[0], exp[1])
		}
	}
	if _, _, ok := Find(ms, "tiny:q4"); ok {
		t.Error("tiny:q4 found: only :latest may be left out")
	}
}

func probe(t *testing.T, url string, idle time.Duration) *Features {
	t.Helper()
	return Discover(context.Background(), Options{BaseURL: url, Generate: true, IdleWait: idle})
}

// TestProbeOllama checks every quirk of the Ollama-like server is found and
// costed.
func TestProbeOllama(t *testing.T) {
	srv := fakeserver.Start(t, fakeserver.Ollama("tiny", 5))
	f := probe(t, srv.URL, 0)
	if f.Model != "tiny:latest" || len(f.Models) != 1 || f.Models[0].MaxModelLen != 0 {
		t.Errorf("models %+v, probed %q", f.Models, f.Model)
	}
	if !f.Metrics.Missing() || !f.Tokenize.Missing() || !f.Reset.Missing() || !f.Health.Missing() || !f.Version.Missing() {
		t.Errorf("endpoints: metrics %+v tokenize %+v reset %+v health %+v version %+v", f.Metrics, f.Tokenize, f.Reset, f.Health, f.Version)
	}
	if !f.TokenIDs.Known || f.TokenIDs.Supported {
		t.Errorf("token ids %+v, want refused", f.TokenIDs)
	}
	if want := (Usage{Known: true, Final: true, Zeroed: true}); f.CompletionsUsage != want {
		t.Errorf("completions usage %+v, want %+v", f.CompletionsUsage, want)
	}
	if f.Role.Kind != RoleInFirstToken {
		t.Errorf("role %+v, want in the first token's chunk", f.Role)
	}
	if f.IgnoreEOS.Got != 5 || f.IgnoreEOS.Honoured() || f.MinTokens.Got != 5 || f.MinTokens.Honoured() {
		t.Errorf("ignore_eos %+v, min_tokens %+v; want 5 of 24, not honoured", f.IgnoreEOS, f.MinTokens)
	}
	var got []string
	for _, m := range f.Missing() {
		got = append(got, m.Feature)
	}
	want := []string{"/metrics", "/reset_prefix_cache", "/tokenize", "token-id prompts", "/health", "/version", "ignore_eos", "min_tokens"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("missing features (-want +got):\n%s", diff)
	}
}

// TestProbeSimulator checks the simulator has everything llmgate uses.
func TestProbeSimulator(t *testing.T) {
	cfg, _, err := sim.ParseArgs([]string{"--profile", "tiny"})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() { cancel(); <-done })

	f := probe(t, "http://"+ln.Addr().String(), 0)
	if m := f.Missing(); len(m) != 0 {
		t.Errorf("the simulator lacks %+v", m)
	}
	if f.Models[0].MaxModelLen != 1024 || f.MetricsFamily != telemetry.MetricsVLLM || !f.TokenIDs.Supported {
		t.Errorf("features %+v", f)
	}
	if f.Role.Kind != RoleChunk || !f.CompletionsUsage.Continuous || !f.ChatUsage.Final {
		t.Errorf("role %+v, usage %+v / %+v", f.Role, f.CompletionsUsage, f.ChatUsage)
	}
	if f.TemplatePrefix < 1 {
		t.Errorf("template prefix %d", f.TemplatePrefix)
	}
}

// TestProbeOthers checks what SGLang-like and llama.cpp-like servers and a
// chat template with a long prefix show.
func TestProbeOthers(t *testing.T) {
	c := fakeserver.VLLM("m", 2048)
	c.TemplatePrefix = 27
	c.RoleChunk = fakeserver.RoleEarly
	c.TTFT = 40 * time.Millisecond
	f := probe(t, fakeserver.Start(t, c).URL, 0)
	if f.TemplatePrefix != 27 {
		t.Errorf("template prefix %d, want 27", f.TemplatePrefix)
	}
	if f.Role.Kind != RoleChunk || f.Role.Lead < 30*time.Millisecond || f.Role.TTFT < 40*time.Millisecond {
		t.Errorf("role %+v, want a chunk about 40ms before the first token", f.Role)
	}
	f = probe(t, fakeserver.Start(t, fakeserver.SGLang("m", 2048)).URL, 0)
	if f.MetricsFamily != telemetry.MetricsSGLang || !f.Reset.Missing() {
		t.Errorf("sglang: family %q reset %+v", f.MetricsFamily, f.Reset)
	}
	f = probe(t, fakeserver.Start(t, fakeserver.LlamaCpp("m", 2048)).URL, 0)
	if f.MetricsFamily != telemetry.MetricsLlamaCpp || !f.Tokenize.Missing() || f.TemplatePrefix != -1 {
		t.Errorf("llama.cpp: family %q tokenize %+v template %d", f.MetricsFamily, f.Tokenize, f.TemplatePrefix)
	}
}

// TestProbeIdleTimeout checks the idle timeout is measured against a
// server that closes idle connections after 300 ms, and reported unknown
// (watched for the whole wait) against one that keeps them.
func TestProbeIdleTimeout(t *testing.T) {
	c := fakeserver.VLLM("m", 2048)
	c.IdleTimeout = 300 * time.Millisecond
	f := Discover(context.Background(), Options{BaseURL: fakeserver.Start(t, c).URL, IdleWait: 10 * time.Second})
	// Go's server checks idle connections on a timer: the close comes at
	// the timeout or a little after, never before
	if f.IdleTimeout < 250*time.Millisecond || f.IdleTimeout > 5*time.Second {
		t.Errorf("idle timeout %v, want about 300ms", f.IdleTimeout)
	}
	f = Discover(context.Background(), Options{BaseURL: fakeserver.Start(t, fakeserver.VLLM("m", 2048)).URL, IdleWait: 200 * time.Millisecond})
	if f.IdleTimeout != 0 || f.IdleWaited < 200*time.Millisecond {
		t.Errorf("a server that keeps idle connections: timeout %v, waited %v", f.IdleTimeout, f.IdleWaited)
	}
}

// TestProbeStalledStream checks a server whose streams stop after one
// chunk costs the probe one stall bound, not one per check.
func TestProbeStalledStream(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out the 5 s stall bound")
	}
	srv := hostile.Start(hostile.StallAfterFirstToken, "")
	defer srv.Close()
	t0 := time.Now()
	f := probe(t, srv.URL, 0)
	if d := time.Since(t0); d > 3*streamStall {
		t.Errorf("probe took %v, want about one stall bound (%v)", d, streamStall)
	}
	if !strings.Contains(f.TokenIDs.Note, "stalled") || f.IgnoreEOS.Known() || f.Role.Kind != "" {
		t.Errorf("token ids %+v, ignore_eos %+v, role %+v: want the stall noted and the other checks skipped", f.TokenIDs, f.IgnoreEOS, f.Role)
	}
}

// TestModelsAndVersionBounded checks endless /v1/models and /version pages
// are refused after their bound, not read without end.
func TestModelsAndVersionBounded(t *testing.T) {
	var sent atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"object":"list","data":[`)
		chunk := []byte(strings.Repeat(`{"id":"m","object":"model"},`, 1000))
		for r.Context().Err() == nil && sent.Load() < 1<<30 {
			n, err := w.Write(chunk)
			sent.Add(int64(n))
			if err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	_, err := Models(context.Background(), nil, srv.URL, "")
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("endless /v1/models: %v, want ErrTooLarge", err)
	}
	if v := Version(context.Background(), nil, srv.URL); v != "" {
		t.Errorf("endless /version gave %q", v)
	}
	// the server may have written ahead into socket buffers, not 1 GiB
	if n := sent.Load(); n > 48<<20 {
		t.Errorf("the server got to send %d bytes; the reads stop at %d", n, MaxModelsBytes)
	}
}
