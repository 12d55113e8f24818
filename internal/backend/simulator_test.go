package backend

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
)

func TestStartSimulator(t *testing.T) {
	s, err := StartSimulator(t.Context(), "my-model", "tiny", "k", []string{"--gpu-memory-utilization", "0.8", "--max-model-len", "256"})
	if err != nil {
		t.Fatalf("StartSimulator: %v", err)
	}
	defer s.Stop(context.Background())
	if !strings.HasPrefix(s.BaseURL(), "http://127.0.0.1:") {
		t.Errorf("BaseURL = %q, want loopback", s.BaseURL())
	}
	if s.Model() != "my-model" || !strings.Contains(s.Metadata().VLLMVersion, "llmgate-sim") {
		t.Errorf("model %q version %q, want my-model and the simulator's version", s.Model(), s.Metadata().VLLMVersion)
	}
	if code, _ := get(t, s.BaseURL()+"/v1/models", ""); code != http.StatusUnauthorized {
		t.Errorf("/v1/models without the key = %d, want 401", code)
	}
	if code, body := get(t, s.BaseURL()+"/v1/models", "k"); code != http.StatusOK || !strings.Contains(body, "my-model") {
		t.Errorf("/v1/models with the key = %d %s", code, body)
	}
	if err := s.Stop(t.Context()); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if err := s.Stop(t.Context()); err != nil {
		t.Errorf("second Stop: %v", err)
	}
	if code := probe(s.BaseURL() + "/health"); code != 0 {
		t.Errorf("/health after Stop = %d, want no answer", code)
	}
}

func TestStartSimulatorBadArgs(t *testing.T) {
	_, err := StartSimulator(t.Context(), "", "tiny", "", []string{"--gpu-memory-utilization", "1.5"})
	if err == nil || !strings.Contains(err.Error(), "1.5") {
		t.Fatalf("StartSimulator with 1.5: %v, want an error naming the value", err)
	}
	if !errors.Is(err, ErrUnavailable) {
		t.Errorf("a server that rejects its flags did not start, like a container with a bad flag: %v", err)
	}
}
