package sim

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/llmgate/llmgate/results"
)

// TestStartupDelay: --startup-delay takes its time before the server
// listens and logs the three phases as vLLM does, timed as they took.
func TestStartupDelay(t *testing.T) {
	cfg, _, err := ParseArgs([]string{"--profile", "tiny", "--startup-delay", "300ms"})
	if err != nil || cfg.StartupDelay != 300*time.Millisecond {
		t.Fatalf("ParseArgs: %v, delay %v", err, cfg.StartupDelay)
	}
	var log bytes.Buffer
	cfg.Log = &log
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	start := time.Now()
	if err := s.startUp(t.Context()); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	phases := results.ParseStartupPhases(log.String())
	if len(phases) != 3 || phases[0].Name != results.PhaseWeights || phases[1].Name != results.PhaseCompile || phases[2].Name != results.PhaseGraphs {
		t.Fatalf("phases %+v from log:\n%s", phases, log.String())
	}
	if took < 300*time.Millisecond || phases[0].Seconds < 0.1 || phases[1].Seconds < 0.1 {
		t.Errorf("start-up took %v, phases %+v: want 300ms, a third each", took, phases)
	}
	for _, bad := range []string{"-1s", "2h", "soon"} {
		if _, _, err := ParseArgs([]string{"--startup-delay", bad}); err == nil {
			t.Errorf("--startup-delay %s accepted", bad)
		}
	}
	// An ended context stops it.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s.cfg.StartupDelay = time.Hour
	if err := s.startUp(ctx); err == nil {
		t.Error("startUp went on after its context ended")
	}
}
