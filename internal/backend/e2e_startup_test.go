package backend_test

import (
	"path/filepath"
	"testing"

	"github.com/llmgate/llmgate/internal/backend"
	"github.com/llmgate/llmgate/internal/runner"
	"github.com/llmgate/llmgate/results"
)

// TestE2EStartupSeconds starts the simulator image with a known start-up
// delay of 3 s (a third each for weights, torch.compile and CUDA graphs,
// with vLLM's log lines): the run records created to ready as at least the
// delay, the phases its log timed, and an assert can name them.
func TestE2EStartupSeconds(t *testing.T) {
	image := backend.SimImage(t)
	session := backend.NewTestSession(t)
	// the max-model-len slot carries the delay flags after the length
	path := writeSuite(t, "startup", "vllm", `256, "--startup-delay", "3s"`, `
scenario "chat" {
  load {
    concurrency = 1
    requests    = 4
  }
  assert "starts" {
    condition = startup.seconds >= 3 && startup.weights_seconds >= 1 && startup.cuda_graphs_seconds >= 1
  }
}
`)
	out := filepath.Join(t.TempDir(), "results.json")
	f, err := runner.Run(t.Context(), loadSuite(t, path, image).Runnable(), runner.Options{
		Starter:    backend.Default{Session: session, ContainerOptions: []backend.ContainerOption{backend.WithoutVolumes()}},
		OutputPath: out,
	})
	if err != nil {
		t.Fatalf("runner.Run: %v", err)
	}
	if len(f.Runs) != 1 || f.Runs[0].Status != results.StatusOK {
		t.Fatalf("runs = %+v, want one ok run", f.Runs)
	}
	st := f.Runs[0].Summary.Startup
	if st == nil {
		t.Fatal("no start-up recorded")
	}
	// Created to ready includes the 3 s and the process's own start; a
	// loaded machine adds, never takes away.
	if st.Seconds < 3 || st.Seconds > 60 {
		t.Errorf("startup.seconds = %.3f, want the 3 s delay and a little more", st.Seconds)
	}
	if len(st.Phases) != 3 {
		t.Fatalf("phases %+v, want weights, compile and cuda_graphs", st.Phases)
	}
	var sum float64
	for i, name := range []string{results.PhaseWeights, results.PhaseCompile, results.PhaseGraphs} {
		if st.Phases[i].Name != name || st.Phases[i].Seconds < 0.5 {
			t.Errorf("phase %d = %+v, want %s of about 1 s", i, st.Phases[i], name)
		}
		sum += st.Phases[i].Seconds
	}
	if sum > st.Seconds+1 { // the graphs' seconds are rounded to whole ones, as vLLM's
		t.Errorf("phases sum to %.3f s, more than the %.3f s start-up", sum, st.Seconds)
	}
	if a := f.Runs[0].Asserts; len(a) != 1 || !a[0].Passed {
		t.Errorf("asserts %+v, want starts passed", a)
	}
	t.Logf("startup.seconds %.3f for a 3 s delay; phases %+v", st.Seconds, st.Phases)
}
