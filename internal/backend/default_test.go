package backend

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmgate/llmgate/runspec"
)

func TestDefaultStartDispatches(t *testing.T) {
	srv := fakeVLLM(t, 200, "", "llama")
	tests := []struct {
		name    string
		spec    runspec.Target
		wantURL string
		wantErr string
	}{
		// endpoint → the URL as given.
		{name: "endpoint", spec: runspec.Target{Kind: runspec.KindEndpoint, Name: "staging", URL: srv.URL, Model: "llama"}, wantURL: srv.URL},
		// simulator → in process on loopback.
		{name: "simulator", spec: runspec.Target{Kind: runspec.KindSimulator, Name: "sim", Profile: "tiny", Args: []string{"--max-model-len", "256"}}, wantURL: "http://127.0.0.1:"},
		// Anything else is a programming error, named.
		{name: "unknown", spec: runspec.Target{Kind: "cluster", Name: "x"}, wantErr: `unknown kind "cluster"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inst, err := Default{}.Start(t.Context(), tt.spec, StartOptions{})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || inst != nil {
					t.Fatalf("Start = %v, %v; want no instance and an error containing %q", inst, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Start: %v", err)
			}
			defer inst.Stop(context.Background())
			if !strings.HasPrefix(inst.BaseURL(), tt.wantURL) {
				t.Errorf("BaseURL = %q, want prefix %q", inst.BaseURL(), tt.wantURL)
			}
		})
	}
}

func TestDefaultStartServer(t *testing.T) {
	session := newSession(t)
	logPath := filepath.Join(t.TempDir(), "out", "results.vllm.log")
	d := Default{Session: session, ContainerOptions: []ContainerOption{WithoutVolumes()}}
	spec := runspec.Target{
		Kind: runspec.KindServer, Name: "vllm", Image: simImage(t), Model: "served-model",
		Args:           []string{"--profile", "tiny", "--max-model-len", "256", "--gpu-memory-utilization", "0.8"},
		StartupTimeout: 2 * time.Minute, APIKey: "k",
	}
	inst, err := d.Start(t.Context(), spec, StartOptions{LogPath: logPath})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer inst.Stop(context.Background())
	c := inst.(*Container)
	if inst.Model() != "served-model" {
		t.Errorf("Model = %q, want served-model", inst.Model())
	}
	if cfg := cacheConfig(t, inst.BaseURL()); cfg["gpu_memory_utilization"] != "0.8" {
		t.Errorf("server args did not reach the server: cache_config_info = %v", cfg)
	}
	ins, err := c.Docker().Inspect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if got := ins.Config.Labels; got[LabelSession] != session || got[LabelTarget] != "vllm" {
		t.Errorf("labels = %v, want %s=%s and %s=vllm", got, LabelSession, session, LabelTarget)
	}
	if err := inst.Stop(t.Context()); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if b, err := os.ReadFile(logPath); err != nil || len(b) == 0 {
		t.Errorf("log file %s: %d bytes, %v; want the container's output (the directory is created)", logPath, len(b), err)
	}
}

func TestDefaultStartServerBadFlag(t *testing.T) {
	// The runner gets the container with the error, stops it, and maps the error to exit 3.
	session := newSession(t)
	d := Default{Session: session, ContainerOptions: []ContainerOption{WithoutVolumes()}}
	inst, err := d.Start(t.Context(), runspec.Target{Kind: runspec.KindServer, Name: "vllm", Image: simImage(t), Model: "m",
		Args: []string{"--profile", "tiny", "--gpu-memory-utilization", "1.5"}}, StartOptions{})
	if inst == nil {
		t.Fatalf("Start returned no instance with its error (%v): the caller cannot remove the container", err)
	}
	defer inst.Stop(context.Background())
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Start error = %v, want one wrapping ErrUnavailable", err)
	}
	if err := inst.Stop(t.Context()); err != nil {
		t.Errorf("Stop after a failed start: %v", err)
	}
}
