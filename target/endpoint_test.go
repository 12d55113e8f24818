package target

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
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
		// No model in the block: the first one served.
		{name: "first model", health: 200, models: []string{"a", "b"}, wantModel: "a"},
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
