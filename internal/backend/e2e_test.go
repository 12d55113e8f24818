package backend_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/llmgate/llmgate/runspec"
	"github.com/moby/moby/client"
	tc "github.com/testcontainers/testcontainers-go"

	"github.com/llmgate/llmgate/internal/backend"
	"github.com/llmgate/llmgate/internal/progress/event"
	"github.com/llmgate/llmgate/internal/runner"
	"github.com/llmgate/llmgate/internal/suite"
	"github.com/llmgate/llmgate/results"
)

// End-to-end: suites with a server target, run by the runner and by
// `llmgate run`, against the simulator image in real containers.

// e2eServer is a server block for the simulator image: tiny profile, a short
// context so its small KV cache fits even at low memory fractions.
const e2eServer = `
variable "image" {}

server %q {
  image           = var.image
  model           = "e2e-model"
  args            = ["--profile", "tiny", "--max-model-len", %s]
  startup_timeout = "2m"
}
`

const e2eDefaults = `
defaults {
  target = server.%s
  workload {
    kind          = "random"
    input_tokens  = 32
    output_tokens = 32
  }
  load { warmup = 2 }
}
`

// writeSuite writes an HCL suite into a temp dir and returns its path.
func writeSuite(t *testing.T, name, server, maxModelLen, body string) string {
	t.Helper()
	src := `suite "` + name + `" {}` + "\n" +
		fmt.Sprintf(e2eServer, server, maxModelLen) + fmt.Sprintf(e2eDefaults, server) + body
	path := filepath.Join(t.TempDir(), name+".hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func loadSuite(t *testing.T, path, image string) *suite.Suite {
	t.Helper()
	s, diags := suite.Load(path, suite.Options{Vars: map[string]string{"image": image}, Getenv: func(string) string { return "" }})
	if diags.HasErrors() {
		if s == nil {
			t.Fatalf("load %s: %v", path, diags)
		}
		var b strings.Builder
		_ = suite.WriteDiagnostics(&b, s.Files, diags, false)
		t.Fatalf("load %s:\n%s", path, b.String())
	}
	return s
}

func TestE2EServerSuite(t *testing.T) {
	image := backend.SimImage(t)
	session := backend.NewTestSession(t)
	path := writeSuite(t, "e2e", "vllm", "256", `
scenario "chat" {
  load {
    concurrency = 2
    requests    = 10
  }
  assert "no_errors" {
    condition = error_rate == 0
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
	r := f.Runs[0]
	if r.Summary.Requests.Completed == 0 || r.Summary.Requests.Failed != 0 {
		t.Errorf("requests completed %d failed %d, want all of them served", r.Summary.Requests.Completed, r.Summary.Requests.Failed)
	}
	env := f.Environment
	if env.TargetKind.Raw() != string(runspec.KindServer) || env.Image.Raw() != image || !strings.HasPrefix(env.ImageDigest.Raw(), "sha256:") ||
		!strings.Contains(env.VLLMVersion.Raw(), "llmgate-sim") || env.Model != "e2e-model" {
		t.Errorf("environment = %+v, want the container's image, digest, version and model", env)
	}
	if _, err := results.ReadFile(out); err != nil {
		t.Errorf("results file: %v", err)
	}
	logPath := filepath.Join(filepath.Dir(out), "results.vllm.log")
	if b, err := os.ReadFile(logPath); err != nil || len(b) == 0 {
		t.Errorf("container log beside the results: %d bytes, %v", len(b), err)
	}
	backend.AssertNoLeftovers(t, session)
}

// readyRecorder checks each server as it comes up: what the simulator says
// it was started with, and how many containers of the session exist. It
// only records; the test asserts once the run is over.
type readyRecorder struct {
	ctx     context.Context
	session string

	mu         sync.Mutex
	gmu        []string
	containers []int
	errs       []error
}

func (r *readyRecorder) Report(e event.Event) {
	ready, ok := e.(event.ServerReady)
	if !ok || ready.Err != nil {
		return
	}
	cfg, err := backend.FetchCacheConfig(r.ctx, ready.URL)
	ids, lerr := backend.SessionContainers(r.ctx, r.session)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, err, lerr)
	r.gmu = append(r.gmu, cfg["gpu_memory_utilization"])
	r.containers = append(r.containers, len(ids))
}

func TestE2EMemorySweep(t *testing.T) {
	image := backend.SimImage(t)
	session := backend.NewTestSession(t)
	path := writeSuite(t, "sweep", "vllm", "256", `
scenario "memory" {
  sweep { gpu_memory_utilization = [0.7, 0.8] }
  server_args = ["--gpu-memory-utilization", sweep.gpu_memory_utilization]
  load {
    concurrency = 2
    requests    = 6
  }
}
`)
	rec := &readyRecorder{ctx: t.Context(), session: session}
	f, err := runner.Run(t.Context(), loadSuite(t, path, image).Runnable(), runner.Options{
		Starter:  backend.Default{Session: session, ContainerOptions: []backend.ContainerOption{backend.WithoutVolumes()}},
		Progress: rec,
	})
	if err != nil {
		t.Fatalf("runner.Run: %v", err)
	}
	if len(f.Runs) != 2 {
		t.Fatalf("%d runs, want one per sweep point", len(f.Runs))
	}
	for _, r := range f.Runs {
		if r.Status != results.StatusOK {
			t.Errorf("run %s: %s %s %q", r.Name, r.Status, r.Error, r.InvalidReasons)
		}
	}
	if err := errors.Join(rec.errs...); err != nil {
		t.Errorf("checking the servers as they came up: %v", err)
	}
	if strings.Join(rec.gmu, ",") != "0.7,0.8" {
		t.Errorf("servers reported gpu_memory_utilization %v, want one server per point: 0.7 then 0.8", rec.gmu)
	}
	if fmt.Sprint(rec.containers) != "[1 1]" {
		t.Errorf("containers alive at each server start = %v, want 1 each (the previous point's removed)", rec.containers)
	}
	backend.AssertNoLeftovers(t, session)
}

// targetContainers lists containers (running or not) started for a server block name.
func targetContainers(t *testing.T, name string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(t.Context()), time.Minute)
	defer cancel()
	cli, err := tc.NewDockerClientWithOpts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	res, err := cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: make(client.Filters).Add("label", backend.LabelTarget+"="+name)})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range res.Items {
		ids = append(ids, c.ID)
	}
	return ids
}

// llmgateRun starts `llmgate run` on a suite; the caller waits.
func llmgateRun(t *testing.T, suitePath, image string, out *bytes.Buffer) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(backend.LLMGateBinary(t), "run", suitePath, "-o", filepath.Join(filepath.Dir(suitePath), "results.json"), "--var", "image="+image)
	cmd.Env = append(os.Environ(), "TESTCONTAINERS_RYUK_DISABLED=true", "GITHUB_ACTIONS=", "CI=")
	cmd.Stdout, cmd.Stderr = out, out
	return cmd
}

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err == nil {
		return 0
	}
	return -1
}

func TestE2ERunExits3OnBadFlag(t *testing.T) {
	image := backend.SimImage(t)
	// At 0.7 of the GPU the tiny profile's KV cache cannot hold one
	// 1024-token sequence: the server refuses at startup, as vLLM does
	// ("max seq len ... is larger than ... KV cache").
	name := "bad_" + backend.NewSession()
	path := writeSuite(t, "bad", name, "1024", `
scenario "chat" {
  server_args = ["--gpu-memory-utilization", 0.7]
  load {
    concurrency = 1
    requests    = 2
  }
}
`)
	var out bytes.Buffer
	cmd := llmgateRun(t, path, image, &out)
	err := cmd.Run()
	if code := exitCode(err); code != 3 {
		t.Fatalf("llmgate run exit code = %d (%v), want 3\n%s", code, err, out.String())
	}
	for _, want := range []string{"exited with code", "KV cache"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q (exit code and the server's own log line):\n%s", want, out.String())
		}
	}
	f, rerr := results.ReadFile(filepath.Join(filepath.Dir(path), "results.json"))
	if rerr != nil || len(f.Runs) != 1 || f.Runs[0].Status != results.StatusFailed {
		t.Errorf("results file: %v, %+v; want the run recorded as failed", rerr, f)
	}
	if ids := targetContainers(t, name); len(ids) > 0 {
		t.Errorf("containers left after llmgate run: %v", ids)
	}
}

func TestE2ERunInterruptRemovesContainer(t *testing.T) {
	image := backend.SimImage(t)
	name := "sig_" + backend.NewSession()
	path := writeSuite(t, "interrupt", name, "256", `
scenario "long" {
  load {
    rate     = 2
    duration = "10m"
  }
}
`)
	var out bytes.Buffer
	cmd := llmgateRun(t, path, image, &out)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
		}
	})

	// Wait (polling the Docker API, bounded) until the container is running.
	deadline := time.Now().Add(2 * time.Minute)
	for len(targetContainers(t, name)) == 0 {
		select {
		case err := <-exited:
			t.Fatalf("llmgate run ended before its container appeared: %v\n%s", err, out.String())
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no container after 2m\n%s", out.String())
		}
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if code := exitCode(err); code != 3 {
			t.Errorf("exit code after SIGINT = %d, want 3 (interrupted)\n%s", code, out.String())
		}
	case <-time.After(2 * time.Minute):
		t.Fatalf("llmgate run did not exit within 2m of SIGINT\n%s", out.String())
	}
	if ids := targetContainers(t, name); len(ids) > 0 {
		t.Errorf("containers left after SIGINT: %v\n%s", ids, out.String())
	}
}
