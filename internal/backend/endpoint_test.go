package backend

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/internal/fakeserver"
)

// fakeVLLM is a minimal OpenAI-compatible server: /health, /version and a
// /v1/models that wants key when key is set.
func fakeVLLM(t *testing.T, health int, key string, models ...string) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(health) })
	mux.HandleFunc("GET /version", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{"version":"0.11.0"}`)) })
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
		if key != "" && r.Header.Get("Authorization") != "Bearer "+key {
			http.Error(w, `{"error":"Unauthorized"}`, http.StatusUnauthorized)
			return
		}
		var ids []string
		for _, m := range models {
			ids = append(ids, `{"id":"`+m+`","object":"model"}`)
		}
		w.Write([]byte(`{"object":"list","data":[` + strings.Join(ids, ",") + `]}`))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestNewEndpoint(t *testing.T) {
	tests := []struct {
		name      string
		health    int
		serverKey string
		models    []string
		model     string
		apiKey    string
		wantModel string
		wantErr   string
		// unavailable says whether the error must wrap ErrUnavailable.
		unavailable bool
	}{
		// The common case: healthy, serves the suite's model.
		{name: "ok", health: 200, models: []string{"llama"}, model: "llama", wantModel: "llama"},
		// No model in the block: the one served.
		{name: "only model", health: 200, models: []string{"a"}, wantModel: "a"},
		// No model named and several served (Ollama lists the newest
		// first: a leftover would be measured): refuse and list them.
		{name: "several models", health: 200, models: []string{"a", "b"}, wantErr: `serves 2 models ("a", "b"): name the one to measure with --model`, unavailable: true},
		// Ollama lists "tiny:latest" and serves "tiny": the listed name is used.
		{name: "latest tag", health: 200, models: []string{"tiny:latest"}, model: "tiny", wantModel: "tiny:latest"},
		// A key the server accepts.
		{name: "api key", health: 200, serverKey: "k", apiKey: "k", models: []string{"m"}, model: "m", wantModel: "m"},
		// /health missing (some gateways) but the API answers: reachable.
		{name: "no health", health: 404, models: []string{"m"}, model: "m", wantModel: "m"},
		// Healthy but the key is wrong: say so before any load is sent.
		{name: "wrong key", health: 200, serverKey: "k", apiKey: "bad", models: []string{"m"}, model: "m", wantErr: "401", unavailable: true},
		// A model the server does not serve: name what it does serve.
		{name: "wrong model", health: 200, models: []string{"a", "b"}, model: "c", wantErr: `does not serve model "c" (it serves: a, b)`, unavailable: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakeVLLM(t, tt.health, tt.serverKey, tt.models...)
			e, err := NewEndpoint(t.Context(), srv.URL+"/", tt.model, tt.apiKey)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("NewEndpoint error = %v, want it to contain %q", err, tt.wantErr)
				}
				if errors.Is(err, ErrUnavailable) != tt.unavailable {
					t.Errorf("errors.Is(err, ErrUnavailable) = %v, want %v", !tt.unavailable, tt.unavailable)
				}
				return
			}
			if err != nil {
				t.Fatalf("NewEndpoint: %v", err)
			}
			if e.BaseURL() != srv.URL || e.Model() != tt.wantModel || e.Metadata().VLLMVersion != "0.11.0" {
				t.Errorf("got base %q model %q version %q, want %q %q 0.11.0", e.BaseURL(), e.Model(), e.Metadata().VLLMVersion, srv.URL, tt.wantModel)
			}
			if err := e.Stop(t.Context()); err != nil {
				t.Errorf("Stop: %v", err)
			}
			// Stop does not touch the server: it still answers.
			if code := probe(srv.URL + "/health"); code != tt.health {
				t.Errorf("after Stop /health = %d, want %d", code, tt.health)
			}
		})
	}
}

func TestNewEndpointUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there any more
	_, err := NewEndpoint(t.Context(), url, "m", "")
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "not reachable") {
		t.Errorf("NewEndpoint on a closed port: %v, want a 'not reachable' error wrapping ErrUnavailable", err)
	}
	_, err = NewEndpoint(t.Context(), "vllm.staging:8000", "m", "")
	if err == nil || errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "http://") {
		t.Errorf("NewEndpoint without a scheme: %v, want a usage error that asks for http://", err)
	}
}

// TestNewEndpointV1URL checks a base URL ending in /v1 (the OpenAI SDK's
// and Ollama's way) reaches the server's root, not /v1/v1/models.
func TestNewEndpointV1URL(t *testing.T) {
	srv := fakeserver.Start(t, fakeserver.Ollama("tiny", 8))
	e, err := NewEndpoint(t.Context(), srv.URL+"/v1", "tiny", "")
	if err != nil {
		t.Fatal(err)
	}
	if e.BaseURL() != srv.URL || e.Model() != "tiny:latest" {
		t.Errorf("base %q model %q, want %q and the served name tiny:latest", e.BaseURL(), e.Model(), srv.URL)
	}
	if n := srv.Hits("/v1/v1/models"); n != 0 {
		t.Errorf("/v1/v1/models asked %d times", n)
	}
}

// TestCheckModel checks a started server's model against the one asked
// for: accepted as listed, as an alias's root, or as a --served-model-name
// of a server that reports no root; refused, naming both, otherwise.
func TestCheckModel(t *testing.T) {
	want := "meta-llama/Llama-3.1-8B-Instruct"
	alias := fakeserver.VLLM(want, 8192)
	alias.Models[0].ID = "llama"
	noRoot := fakeserver.VLLM("llama", 8192)
	noRoot.Models[0].Root = ""
	tests := []struct {
		name      string
		cfg       fakeserver.Config
		args      []string
		modelFlag bool
		served    string
		err       string
	}{
		{name: "same", cfg: fakeserver.VLLM(want, 8192), served: want},
		{name: "alias", cfg: alias, args: []string{"--served-model-name", "llama"}, served: "llama"},
		{name: "alias without root", cfg: noRoot, args: []string{"--served-model-name=llama"}, served: "llama"},
		// the module entrypoint ignored the positional model
		{name: "other model", cfg: fakeserver.OtherModel(),
			err: `it serves "Qwen/Qwen3-0.6B", not the requested "meta-llama/Llama-3.1-8B-Instruct"; an image whose entrypoint is vLLM's api_server module`},
		// an alias that loaded the wrong model is still the wrong model
		{name: "alias of another model", cfg: func() fakeserver.Config {
			c := fakeserver.OtherModel()
			c.Models[0].ID = "llama"
			return c
		}(), args: []string{"--served-model-name", "llama"}, err: `"llama" (loaded from "Qwen/Qwen3-0.6B")`},
		// with --model given the image is not the module-entrypoint kind: no such hint
		{name: "other model, model flag", cfg: fakeserver.OtherModel(), modelFlag: true, err: `not the requested`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakeserver.Start(t, tt.cfg)
			got, err := checkModel(t.Context(), srv.URL, "", want, tt.args, tt.modelFlag)
			if tt.err != "" {
				if err == nil || !errors.Is(err, ErrWrongModel) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v, want ErrWrongModel saying %q", err, tt.err)
				}
				if tt.modelFlag && strings.Contains(err.Error(), "model_flag") {
					t.Errorf("suggests model_flag though it is set: %v", err)
				}
				return
			}
			if err != nil || got != tt.served {
				t.Errorf("got %q, %v; want %q", got, err, tt.served)
			}
		})
	}
}
