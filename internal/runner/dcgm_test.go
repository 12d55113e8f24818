package runner

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmgate/llmgate/internal/backend"
	"github.com/llmgate/llmgate/results"
)

// exporterPage is two GPUs as NVIDIA's dcgm-exporter serves them (HELP and
// TYPE lines, device and pod labels, a family llmgate does not read).
const exporterPage = `# HELP DCGM_FI_DEV_GPU_TEMP GPU temperature (in C).
# TYPE DCGM_FI_DEV_GPU_TEMP gauge
DCGM_FI_DEV_GPU_TEMP{gpu="0",UUID="GPU-1",device="nvidia0",modelName="NVIDIA A100-SXM4-80GB",Hostname="n1"} 61
# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).
# TYPE DCGM_FI_DEV_GPU_UTIL gauge
DCGM_FI_DEV_GPU_UTIL{gpu="1",UUID="GPU-2",device="nvidia1",modelName="NVIDIA A100-SXM4-80GB",Hostname="n1",pod="vllm-0"} 31
DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-1",device="nvidia0",modelName="NVIDIA A100-SXM4-80GB",Hostname="n1",pod="vllm-0"} 93
# HELP DCGM_FI_DEV_FB_FREE Framebuffer memory free (in MiB).
# TYPE DCGM_FI_DEV_FB_FREE gauge
DCGM_FI_DEV_FB_FREE{gpu="0",UUID="GPU-1",device="nvidia0"} 9920
DCGM_FI_DEV_FB_FREE{gpu="1",UUID="GPU-2",device="nvidia1"} 80896
# HELP DCGM_FI_DEV_FB_USED Framebuffer memory used (in MiB).
# TYPE DCGM_FI_DEV_FB_USED gauge
DCGM_FI_DEV_FB_USED{gpu="0",UUID="GPU-1",device="nvidia0"} 72000
DCGM_FI_DEV_FB_USED{gpu="1",UUID="GPU-2",device="nvidia1"} 1024
# HELP DCGM_FI_DEV_POWER_USAGE Power draw (in W).
# TYPE DCGM_FI_DEV_POWER_USAGE gauge
DCGM_FI_DEV_POWER_USAGE{gpu="0",UUID="GPU-1",device="nvidia0"} 301.5
DCGM_FI_DEV_POWER_USAGE{gpu="1",UUID="GPU-2",device="nvidia1"} 88
`

// exporter serves page at /metrics on loopback and counts the scrapes.
func exporter(t *testing.T, page string) (url string, scrapes *atomic.Int64) {
	scrapes = new(atomic.Int64)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		scrapes.Add(1)
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		fmt.Fprint(w, page)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/metrics", scrapes
}

// TestRunReadsDCGMExporter runs the suite on the in-process simulator with
// the default Starter: the suite's dcgm_exporter is scraped during the
// measured phase and its readings come out as the run's GPU figures, in the
// results file and in the asserts.
func TestRunReadsDCGMExporter(t *testing.T) {
	url, scrapes := exporter(t, exporterPage)
	s := loadSuite(t, "dcgm.hcl", map[string]string{"dcgm": url})
	out := filepath.Join(t.TempDir(), "results.json")
	if _, err := Run(context.Background(), s, Options{Starter: backend.Default{}, OutputPath: out, GPUInterval: 20 * time.Millisecond}); err != nil {
		t.Fatalf("Run: %v", err)
	}
	run := readBack(t, out).Runs[0]
	if run.Status == results.StatusFailed {
		t.Fatalf("run failed: %s", run.Error)
	}
	g, series := run.Summary.GPU, run.GPUSeries
	if g == nil || series == nil {
		t.Fatalf("no GPU figures: summary %+v series %+v", g, series)
	}
	if series.Source != results.GPUSourceDCGM || series.Dropped != 0 || series.Error != "" {
		t.Errorf("series source %q, %d dropped (%s)", series.Source, series.Dropped, series.Error)
	}
	if g.Count != 2 || g.UtilMeanPercent != 62 || g.UtilMaxPercent != 93 || g.MemoryUsedMaxMiB != 72000 ||
		g.PowerMeanWatts == nil || *g.PowerMeanWatts != 389.5 || *g.PowerMaxWatts != 389.5 {
		t.Errorf("GPU summary %+v, want the exporter's figures", g)
	}
	if len(g.PerGPU) != 2 || g.PerGPU[0].MemoryTotalMiB != 81920 || g.PerGPU[1].UtilMeanPercent != 31 {
		t.Errorf("per GPU %+v: want gpu 0 first, its total used + free", g.PerGPU)
	}
	n := len(series.Samples)
	if n == 0 || g.Samples != n || int64(n) > scrapes.Load() {
		t.Errorf("%d samples summarized of %d in the series, %d scrapes", g.Samples, n, scrapes.Load())
	}
	if len(run.Asserts) != 3 || !run.Asserts[0].Passed || run.Asserts[1].Passed || !run.Asserts[2].Passed {
		t.Errorf("asserts %+v: want busy passed, frugal failed (389.5 W), efficient passed", run.Asserts)
	}
	// constant power: the energy is 389.5 W over the measured window, per
	// output token of the window's completed requests
	d, toks := run.Summary.DurationSeconds, run.Summary.OutputTokens
	if e := g.Energy; e == nil || math.Abs(e.Joules-389.5*d) > 1e-6*e.Joules || toks == 0 || e.PerToken == nil || math.Abs(*e.PerToken-389.5*d/float64(toks)) > 1e-9 {
		t.Errorf("energy %+v, want %v J over %.3f s, %v J a token of %d", e, 389.5*d, d, 389.5*d/float64(toks), toks)
	} else {
		t.Logf("energy %.1f J over %.3f s, %.4f J a token of %d (constant 389.5 W)", e.Joules, d, *e.PerToken, toks)
	}
}

// TestRunSurvivesBadDCGMExporter: an exporter whose every page is unusable
// (a NaN utilisation) costs the run its GPU figures, not the run: the
// failed reads are counted with their reason and the gpu.* asserts fail
// saying the metrics were not measured.
func TestRunSurvivesBadDCGMExporter(t *testing.T) {
	url, scrapes := exporter(t, strings.Replace(exporterPage, "} 93\n", "} NaN\n", 1))
	s := loadSuite(t, "dcgm.hcl", map[string]string{"dcgm": url})
	out := filepath.Join(t.TempDir(), "results.json")
	if _, err := Run(context.Background(), s, Options{Starter: backend.Default{}, OutputPath: out, GPUInterval: 20 * time.Millisecond}); err != nil {
		t.Fatalf("Run: %v", err)
	}
	run := readBack(t, out).Runs[0]
	if run.Status != results.StatusOK {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}
	if run.Summary.GPU != nil {
		t.Errorf("GPU summary %+v from unusable pages", run.Summary.GPU)
	}
	series := run.GPUSeries
	if series == nil || len(series.Samples) != 0 || series.Dropped == 0 || int64(series.Dropped) > scrapes.Load() {
		t.Fatalf("series %+v after %d scrapes: want every read dropped", series, scrapes.Load())
	}
	if want := `DCGM exporter: DCGM_FI_DEV_GPU_UTIL{gpu="0"}: NaN is not in [0, 100]`; series.Error != want {
		t.Errorf("series error %q, want %q", series.Error, want)
	}
	for _, a := range run.Asserts {
		if a.Passed || !strings.Contains(a.Message.Raw(), "dcgm_exporter") {
			t.Errorf("assert %+v: want failed, saying why gpu.* is missing", a)
		}
	}
}

// TestDCGMExporterWinsOverTheInstancesOwnReader: a target that reads its
// own GPUs (a container's nvidia-smi; here the test's stand-in) is read
// from the suite's DCGM exporter instead when the block names one.
func TestDCGMExporterWinsOverTheInstancesOwnReader(t *testing.T) {
	url, scrapes := exporter(t, exporterPage)
	s := loadSuite(t, "dcgm.hcl", map[string]string{"dcgm": url})
	st := &gpuStarter{}
	out := filepath.Join(t.TempDir(), "results.json")
	if _, err := Run(context.Background(), s, Options{Starter: st, OutputPath: out, GPUInterval: 20 * time.Millisecond}); err != nil {
		t.Fatalf("Run: %v", err)
	}
	run := readBack(t, out).Runs[0]
	if st.reads.Load() != 0 || scrapes.Load() == 0 {
		t.Errorf("%d reads of the instance's own GPUs, %d of the exporter", st.reads.Load(), scrapes.Load())
	}
	if g := run.Summary.GPU; g == nil || run.GPUSeries.Source != results.GPUSourceDCGM || g.UtilMeanPercent != 62 {
		t.Errorf("GPU summary %+v: want the exporter's (62 %% mean)", g)
	}
}

// TestDCGMExporterReadsTheServersGPUsOnly: the exporter reports its whole
// node; a server on device 1 gets device 1's figures alone.
func TestDCGMExporterReadsTheServersGPUsOnly(t *testing.T) {
	url, _ := exporter(t, exporterPage)
	s := loadSuite(t, "dcgm_server.hcl", map[string]string{"dcgm": url})
	out := filepath.Join(t.TempDir(), "results.json")
	if _, err := Run(context.Background(), s, Options{Starter: &gpuStarter{}, OutputPath: out, GPUInterval: 20 * time.Millisecond}); err != nil {
		t.Fatalf("Run: %v", err)
	}
	run := readBack(t, out).Runs[0]
	g := run.Summary.GPU
	if g == nil || g.Count != 1 || g.UtilMeanPercent != 31 || g.MemoryUsedMaxMiB != 1024 || *g.PowerMeanWatts != 88 {
		t.Fatalf("GPU summary %+v: want device 1's figures alone", g)
	}
	if len(run.Asserts) != 1 || !run.Asserts[0].Passed {
		t.Errorf("asserts %+v", run.Asserts)
	}
}
