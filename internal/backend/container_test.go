package backend

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/moby/moby/api/types/network"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	tc "github.com/testcontainers/testcontainers-go"
	tclog "github.com/testcontainers/testcontainers-go/log"
)

// startSim starts the simulator image with test defaults (no cache volumes,
// the test's session, logs in the test log) and stops it when the test ends.
func startSim(t *testing.T, session string, opts ...ContainerOption) (*Container, error) {
	t.Helper()
	base := []ContainerOption{
		WithSession(session),
		WithoutVolumes(),
		WithLogger(tclog.TestLogger(t)),
		WithModel("test-model"),
		WithArgs("--profile", "tiny"),
		WithStartupTimeout(2 * time.Minute),
	}
	c, err := Run(t.Context(), simImage(t), append(base, opts...)...)
	t.Cleanup(func() {
		if err := c.Stop(context.Background()); err != nil {
			t.Errorf("stop: %v", err)
		}
	})
	return c, err
}

func get(t *testing.T, url, apiKey string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+apiKey)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return resp.StatusCode, string(b)
}

// cacheConfig reads the labels of vllm:cache_config_info from /metrics.
func cacheConfig(t *testing.T, base string) map[string]string {
	t.Helper()
	labels, err := fetchCacheConfig(t.Context(), base)
	if err != nil {
		t.Fatal(err)
	}
	return labels
}

// fetchCacheConfig is cacheConfig for callers that cannot stop the test (callbacks).
func fetchCacheConfig(ctx context.Context, base string) (map[string]string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/metrics", nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET /metrics: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /metrics: %s", resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("parse /metrics: %w", err)
	}
	fam, ok := fams["vllm:cache_config_info"]
	if !ok || len(fam.GetMetric()) == 0 {
		return nil, errors.New("/metrics has no vllm:cache_config_info")
	}
	labels := map[string]string{}
	for _, l := range fam.GetMetric()[0].GetLabel() {
		labels[l.GetName()] = l.GetValue()
	}
	return labels, nil
}

func TestRunServesThroughMappedPort(t *testing.T) {
	session := newSession(t)
	logPath := filepath.Join(t.TempDir(), "results.sim.log")
	c, err := startSim(t, session, WithLogFile(logPath))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if !strings.HasPrefix(c.BaseURL(), "http://127.0.0.1:") || strings.HasSuffix(c.BaseURL(), ":8000") {
		t.Errorf("BaseURL = %q, want a random host port on 127.0.0.1", c.BaseURL())
	}
	if code, body := get(t, c.BaseURL()+"/health", ""); code != http.StatusOK {
		t.Errorf("GET /health = %d %s", code, body)
	}
	// published on the host's loopback only (VLLM_SERVER_DEV_MODE's endpoints too)
	if ins, err := c.Docker().Inspect(t.Context()); err != nil {
		t.Fatal(err)
	} else {
		for p, bs := range ins.NetworkSettings.Ports {
			for _, b := range bs {
				if b.HostIP.String() != "127.0.0.1" {
					t.Errorf("port %s published on %s, want 127.0.0.1 only", p, b.HostIP)
				}
			}
		}
	}
	if code, body := get(t, c.BaseURL()+"/v1/models", ""); code != http.StatusOK || !strings.Contains(body, `"test-model"`) {
		t.Errorf("GET /v1/models = %d %s, want test-model listed", code, body)
	}

	md := c.Metadata()
	if md.Model != "test-model" || c.Model() != "test-model" {
		t.Errorf("model = %q / %q, want test-model", md.Model, c.Model())
	}
	if !strings.Contains(md.VLLMVersion, "llmgate-sim") {
		t.Errorf("VLLMVersion = %q, want the simulator's /version", md.VLLMVersion)
	}
	if md.Image != simImage(t) || !strings.HasPrefix(md.ImageDigest, "sha256:") {
		t.Errorf("image = %q digest = %q, want %q and a sha256 digest", md.Image, md.ImageDigest, simImage(t))
	}
	if md.GPU != "" {
		t.Errorf("GPU = %q, want empty: the simulator image's stand-in nvidia-smi answers no name query", md.GPU)
	}

	ids, err := SessionContainers(t.Context(), session)
	if err != nil || len(ids) != 1 || ids[0] != c.ID() {
		t.Errorf("SessionContainers = %v, %v; want just %s (the session label is set)", ids, err, c.ID())
	}

	if err := c.Stop(t.Context()); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if err := c.Stop(t.Context()); err != nil {
		t.Errorf("second Stop: %v", err)
	}
	log, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatalf("log file: %v", err)
	}
	// The file is complete: from the first startup line to the shutdown
	// line the server prints after Stop's SIGTERM.
	for _, want := range []string{"Application startup complete", "Shutting down"} {
		if !strings.Contains(string(log), want) {
			t.Errorf("log file %s lacks %q:\n%s", logPath, want, log)
		}
	}
	assertNoContainers(t, session)
}

func TestRunPassesServerArgs(t *testing.T) {
	// Each memory-sweep point is its own container; the simulator reports the
	// flag it was started with as vLLM does, in vllm:cache_config_info.
	session := newSession(t)
	var blocks []string
	for _, gmu := range []string{"0.7", "0.9"} {
		c, err := startSim(t, session, WithArgs("--max-model-len", "256", "--gpu-memory-utilization", gmu))
		if err != nil {
			t.Fatalf("Run with --gpu-memory-utilization %s: %v", gmu, err)
		}
		cfg := cacheConfig(t, c.BaseURL())
		if cfg["gpu_memory_utilization"] != gmu {
			t.Errorf("cache_config_info gpu_memory_utilization = %q, want %q", cfg["gpu_memory_utilization"], gmu)
		}
		blocks = append(blocks, cfg["num_gpu_blocks"])
		if err := c.Stop(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	if blocks[0] == blocks[1] {
		t.Errorf("num_gpu_blocks = %v for 0.7 and 0.9, want the KV budget to follow the flag", blocks)
	}
}

func TestRunBadFlagFailsFast(t *testing.T) {
	session := newSession(t)
	// A startup timeout far longer than the test's deadline: only failing
	// fast on the exit can make this test pass.
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	c, err := Run(ctx, simImage(t),
		WithSession(session), WithoutVolumes(), WithLogger(tclog.TestLogger(t)),
		WithModel("test-model"), WithArgs("--profile", "tiny", "--gpu-memory-utilization", "1.5"),
		WithStartupTimeout(time.Hour))
	t.Cleanup(func() { _ = c.Stop(context.Background()) })
	if err == nil {
		t.Fatal("Run succeeded with --gpu-memory-utilization 1.5")
	}
	if c == nil {
		t.Error("Run returned no container with its error; the caller could not clean up")
	}
	var se *StartError
	if !errors.As(err, &se) {
		t.Fatalf("error is %T, want *StartError: %v", err, err)
	}
	// llmgate sim exits 2 on a bad flag value, llmgate's usage code.
	if !se.Exited || se.ExitCode != 2 {
		t.Errorf("Exited = %v, ExitCode = %d; want exited with code 2", se.Exited, se.ExitCode)
	}
	if len(se.LogTail) == 0 || len(se.LogTail) > LogTailLines {
		t.Errorf("log tail has %d lines, want 1..%d", len(se.LogTail), LogTailLines)
	}
	if !strings.Contains(err.Error(), "1.5") {
		t.Errorf("error does not show the log line that names the bad value:\n%v", err)
	}
	if !errors.Is(err, ErrUnavailable) {
		t.Errorf("error does not wrap ErrUnavailable: %v", err)
	}
}

func TestRunRefusesGPUsWithoutNvidiaRuntime(t *testing.T) {
	requireDocker(t)
	session := newSession(t)
	c, err := Run(t.Context(), simImage(t), WithSession(session), WithoutVolumes(), WithGPUs("all"))
	if err == nil {
		c.Stop(context.Background())
		t.Skip("this Docker daemon has an nvidia runtime: nothing to refuse")
	}
	// Docker refuses the device request when the container starts; the
	// container it created is returned, and Stop removes it (newSession
	// checks that nothing is left).
	if err := c.Stop(context.Background()); err != nil {
		t.Errorf("Stop after the refusal: %v", err)
	}
	t.Logf("refusal:\n%v", err)
	if !errors.Is(err, ErrNoGPURuntime) || !errors.Is(err, ErrUnavailable) {
		t.Errorf("error does not wrap ErrNoGPURuntime and ErrUnavailable: %v", err)
	}
	for _, hint := range []string{"NVIDIA Container Toolkit", "nvidia-ctk runtime configure --runtime=docker"} {
		if !strings.Contains(err.Error(), hint) {
			t.Errorf("error lacks the hint %q:\n%v", hint, err)
		}
	}
}

func TestRunAPIKey(t *testing.T) {
	session := newSession(t)
	c, err := startSim(t, session, WithAPIKey("sekret"))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if code, _ := get(t, c.BaseURL()+"/v1/models", ""); code != http.StatusUnauthorized {
		t.Errorf("GET /v1/models without the key = %d, want 401", code)
	}
	if code, _ := get(t, c.BaseURL()+"/v1/models", "sekret"); code != http.StatusOK {
		t.Errorf("GET /v1/models with the key = %d, want 200", code)
	}
	if c.Model() != "test-model" {
		t.Errorf("Model = %q, want test-model read with the key", c.Model())
	}
}

func TestRunVolumes(t *testing.T) {
	// A named volume and a host directory, in place of the two default caches.
	session := newSession(t)
	vol := "llmgate-test-" + session
	dir := t.TempDir()
	t.Cleanup(func() { removeVolume(t, vol) }) // runs after the container is removed
	c, err := startSim(t, session, WithVolumes(map[string]string{vol: HFCachePath, dir: VLLMCachePath}))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	ins, err := c.Docker().Inspect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, m := range ins.Mounts {
		src := m.Name
		if m.Type == "bind" {
			src = m.Source
		}
		got[m.Destination] = string(m.Type) + ":" + src
	}
	want := map[string]string{HFCachePath: "volume:" + vol, VLLMCachePath: "bind:" + dir}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mounts (-want +got):\n%s", diff)
	}
}

func TestStopWithCancelledContext(t *testing.T) {
	// SIGINT cancels the run's context; Stop must still remove the container.
	session := newSession(t)
	c, err := startSim(t, session)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := c.Stop(ctx); err != nil {
		t.Fatalf("Stop with a cancelled context: %v", err)
	}
	assertNoContainers(t, session)
}

func TestRunCancelled(t *testing.T) {
	session := newSession(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	c, err := Run(ctx, simImage(t), WithSession(session), WithoutVolumes(), WithLogger(tclog.TestLogger(t)))
	defer c.Stop(context.Background())
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Run with a cancelled context: %v, want context.Canceled", err)
	}
	if errors.Is(err, ErrUnavailable) {
		t.Errorf("an interrupted start is not an unavailable server: %v", err)
	}
}

func TestCleanupRemovesLeftovers(t *testing.T) {
	// A process killed before Stop leaves its container; Cleanup finds it by label.
	session := newSession(t)
	c, err := startSim(t, session)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if err := Cleanup(t.Context(), session); err != nil {
		t.Fatalf("Cleanup: %v", err)
	}
	assertNoContainers(t, session)
	if code := probe(c.BaseURL() + "/health"); code == http.StatusOK {
		t.Errorf("the server still answers after Cleanup")
	}
}

func probe(url string) int {
	resp, err := http.Get(url)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestRunModelFlag(t *testing.T) {
	// Older images take --model; the simulator accepts both spellings, as vLLM does.
	session := newSession(t)
	c, err := startSim(t, session, WithModel("flag-model"), WithModelFlag())
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	ins, err := c.Docker().Inspect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(ins.Config.Cmd, " "); !strings.HasPrefix(got, "--model flag-model") {
		t.Errorf("command = %q, want it to start with --model flag-model", got)
	}
	if c.Model() != "flag-model" {
		t.Errorf("Model = %q, want flag-model", c.Model())
	}
}

func TestRunPortFlag(t *testing.T) {
	// A --port in the args moves the server inside the container; the port
	// mapped and probed for /health follows it.
	session := newSession(t)
	c, err := startSim(t, session, WithArgs("--port", "9000"))
	if err != nil {
		t.Fatalf("Run with --port 9000: %v", err)
	}
	if code := probe(c.BaseURL() + "/health"); code != http.StatusOK {
		t.Errorf("GET %s/health = %d, want 200", c.BaseURL(), code)
	}
	ins, err := c.Docker().Inspect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := ins.Config.ExposedPorts[network.MustParsePort("9000/tcp")]; !ok {
		t.Errorf("exposed ports = %v, want 9000/tcp", ins.Config.ExposedPorts)
	}
}

// TestRunRefusesAnotherModel starts a container whose command does not
// carry the model asked for (as a module-entrypoint image ignores a
// positional one): Run fails naming both models.
func TestRunRefusesAnotherModel(t *testing.T) {
	session := newSession(t)
	_, err := startSim(t, session, WithModel("wanted-model"),
		WithCustomizers(tc.WithCmd("Qwen/Qwen3-0.6B", "--profile", "tiny")))
	if !errors.Is(err, ErrWrongModel) || !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Run: %v, want ErrWrongModel and ErrUnavailable", err)
	}
	for _, want := range []string{`"Qwen/Qwen3-0.6B"`, `"wanted-model"`, "model_flag = true"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %s", err, want)
		}
	}
}
