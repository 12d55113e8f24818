package backend_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/llmgate/llmgate/internal/backend"
	"github.com/llmgate/llmgate/internal/runner"
	"github.com/llmgate/llmgate/results"
)

// TestE2EGPUSampling runs a server suite on the simulator image with GPU
// sampling on (no GPUs requested): the runner reads the image's stand-in
// nvidia-smi through docker exec during the run, and its fixed readings
// (two GPUs: 87 % and 45 %, 70000 and 35000 MiB, 412.5 and 250 W) come out
// as the run's GPU figures and the asserts' gpu.* metrics.
func TestE2EGPUSampling(t *testing.T) {
	image := backend.SimImage(t)
	session := backend.NewTestSession(t)
	path := writeSuite(t, "e2e-gpu", "vllm", "256", `
scenario "chat" {
  load {
    concurrency = 2
    requests    = 20
  }
  assert "busy" {
    condition = gpu.util.mean > 60 && gpu.memory_used.max == 70000
  }
  assert "frugal" {
    condition = gpu.power.max < 600
  }
}
`)
	out := filepath.Join(t.TempDir(), "results.json")
	_, err := runner.Run(t.Context(), loadSuite(t, path, image).Runnable(), runner.Options{
		Starter:     backend.Default{Session: session, ContainerOptions: []backend.ContainerOption{backend.WithoutVolumes(), backend.WithGPUSampling()}},
		OutputPath:  out,
		GPUInterval: 100 * time.Millisecond,
	})
	if err != nil {
		t.Fatalf("runner.Run: %v", err)
	}
	f, err := results.ReadFile(out)
	if err != nil {
		t.Fatalf("results file: %v", err)
	}
	r := f.Runs[0]
	if r.Status == results.StatusFailed {
		t.Fatalf("run failed: %s", r.Error)
	}
	g := r.Summary.GPU
	if g == nil || r.GPUSeries == nil || len(r.GPUSeries.Samples) == 0 {
		t.Fatalf("no GPU figures: summary %+v series %+v", g, r.GPUSeries)
	}
	t.Logf("%d GPU samples over a measured phase of %v", len(r.GPUSeries.Samples), r.Finished.Sub(r.Started))
	if r.GPUSeries.Dropped != 0 {
		t.Errorf("%d nvidia-smi reads failed", r.GPUSeries.Dropped)
	}
	if g.Count != 2 || g.UtilMeanPercent != 66 || g.UtilMaxPercent != 87 || g.MemoryUsedMaxMiB != 70000 ||
		g.PowerMeanWatts == nil || *g.PowerMeanWatts != 662.5 || *g.PowerMaxWatts != 662.5 {
		t.Errorf("GPU summary %+v, want the stand-in's readings", g)
	}
	if len(r.Asserts) != 2 || !r.Asserts[0].Passed || r.Asserts[1].Passed {
		t.Errorf("asserts %+v: want busy passed and frugal failed (662.5 W)", r.Asserts)
	}
	backend.AssertNoLeftovers(t, session)
}
