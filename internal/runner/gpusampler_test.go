package runner

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmgate/llmgate/internal/backend"
	"github.com/llmgate/llmgate/internal/telemetry"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
)

// gpuStarter starts the tiny simulator with the suite's args and gives it two GPUs with fixed
// readings, counting the reads.
type gpuStarter struct{ reads atomic.Int64 }

func (s *gpuStarter) Start(ctx context.Context, spec runspec.Target, opts backend.StartOptions) (backend.Instance, error) {
	inst, err := backend.Default{}.Start(ctx, runspec.Target{Kind: runspec.KindSimulator, Name: spec.Name, Profile: "tiny", Args: spec.Args}, backend.StartOptions{})
	if err != nil {
		return nil, err
	}
	return &gpuInstance{Instance: inst, reads: &s.reads}, nil
}

type gpuInstance struct {
	backend.Instance
	reads *atomic.Int64
}

func (g *gpuInstance) SamplesGPUs() bool { return true }

func (g *gpuInstance) GPUSource() results.GPUSource { return results.GPUSourceNvidiaSMI }

func (g *gpuInstance) ReadGPUs(ctx context.Context) ([]results.GPUReading, error) {
	g.reads.Add(1)
	return telemetry.ParseGPUReadings("80, 1000, 2000, 300\n40, 1500, 2000, 250\n")
}

func TestRunSamplesGPUs(t *testing.T) {
	s := loadSuite(t, "gpu.hcl", nil)
	st := &gpuStarter{}
	out := filepath.Join(t.TempDir(), "results.json")
	if _, err := Run(context.Background(), s, Options{Starter: st, OutputPath: out, GPUInterval: 5 * time.Millisecond}); err != nil {
		t.Fatalf("Run: %v", err)
	}
	run := readBack(t, out).Runs[0] // the figures survive the file
	if run.Status == results.StatusFailed {
		t.Fatalf("run failed: %s", run.Error)
	}
	g := run.Summary.GPU
	if g == nil || run.GPUSeries == nil {
		t.Fatalf("no GPU figures: summary %+v series %+v", g, run.GPUSeries)
	}
	if g.Count != 2 || g.UtilMeanPercent != 60 || g.UtilMaxPercent != 80 || g.MemoryUsedMaxMiB != 1500 || *g.PowerMeanWatts != 550 || *g.PowerMaxWatts != 550 {
		t.Errorf("GPU summary %+v", g)
	}
	n := len(run.GPUSeries.Samples)
	if n == 0 || g.Samples != n || int64(n) > st.reads.Load() {
		t.Errorf("%d samples summarized of %d in the series, %d reads", g.Samples, n, st.reads.Load())
	}
	// The series covers the measured phase only: its clock starts there.
	window := run.Finished.Sub(run.Started).Seconds()
	for _, smp := range run.GPUSeries.Samples {
		if smp.T < 0 || smp.T > window+1 {
			t.Errorf("sample at %gs, outside the measured window of %gs", smp.T, window)
		}
	}
	if len(run.Asserts) != 2 || !run.Asserts[0].Passed || run.Asserts[1].Passed {
		t.Errorf("asserts %+v: want busy passed, frugal failed (550 W)", run.Asserts)
	}
}

func TestGPUSamplerNotForInstancesWithoutGPUs(t *testing.T) {
	inst, err := backend.Default{}.Start(t.Context(), runspec.Target{Kind: runspec.KindSimulator, Profile: "tiny"}, backend.StartOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Stop(context.Background())
	s := startGPUSampler(t.Context(), inst, time.Millisecond, time.Now)
	if s != nil {
		t.Error("sampler started for an instance without GPUs")
	}
	s.Restart()
	if series, sum := s.Stop(); series != nil || sum != nil {
		t.Error("a nil sampler returned figures")
	}
}
