package backend

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"
	tc "github.com/testcontainers/testcontainers-go"
)

// simTestImage is the tag the simulator image is built under for these
// tests: one per test binary, so that two test processes on one daemon
// (go test ./... next to go test ./internal/backend/) never remove each other's image.
var (
	simImageRepo, simImageTag = "llmgate-sim", "test-" + NewSession()
	simTestImage              = simImageRepo + ":" + simImageTag
)

func TestMain(m *testing.M) {
	if os.Getenv(reaperChildEnv) != "" {
		// TestReaperChild's process: nothing may touch testcontainers
		// before the Run under test, which decides on the reaper.
		os.Exit(m.Run())
	}
	// Nothing can be pulled on the test machines, Ryuk included; every test
	// removes its own containers and checks that it did.
	if _, ok := os.LookupEnv("TESTCONTAINERS_RYUK_DISABLED"); !ok {
		os.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
	}
	// The CLI tests start servers with the default cache volumes; remove
	// the ones that did not exist before, so the machine is left as found.
	fresh := missingVolumes(HFCacheVolume, VLLMCacheVolume)
	code := m.Run()
	removeVolumes(fresh)
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	if imageBuilt {
		removeSimImage()
	}
	os.Exit(code)
}

// missingVolumes returns those of names that do not exist yet; none when
// no Docker daemon answers.
func missingVolumes(names ...string) []string {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cli, err := tc.NewDockerClientWithOpts(ctx)
	if err != nil {
		return nil
	}
	defer cli.Close()
	if _, err := cli.Ping(ctx, client.PingOptions{}); err != nil {
		return nil
	}
	var missing []string
	for _, n := range names {
		if _, err := cli.VolumeInspect(ctx, n, client.VolumeInspectOptions{}); err != nil {
			missing = append(missing, n)
		}
	}
	return missing
}

// removeVolumes deletes the named volumes, saying so when one cannot go.
func removeVolumes(names []string) {
	if len(names) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cli, err := tc.NewDockerClientWithOpts(ctx)
	if err != nil {
		return
	}
	defer cli.Close()
	for _, n := range names {
		if _, err := cli.VolumeRemove(ctx, n, client.VolumeRemoveOptions{}); err != nil && !cerrdefs.IsNotFound(err) {
			fmt.Fprintf(os.Stderr, "remove volume %s: %v\n", n, err)
		}
	}
}

// removeSimImage deletes the image the tests built, so repeated runs leave
// no image (and no untagged predecessors) behind on the machine.
func removeSimImage() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cli, err := tc.NewDockerClientWithOpts(ctx)
	if err != nil {
		fmt.Fprintf(os.Stderr, "remove %s: %v\n", simTestImage, err)
		return
	}
	defer cli.Close()
	if _, err := cli.ImageRemove(ctx, simTestImage, client.ImageRemoveOptions{Force: true, PruneChildren: true}); err != nil {
		fmt.Fprintf(os.Stderr, "remove %s: %v\n", simTestImage, err)
	}
}

var (
	dockerOnce sync.Once
	dockerErr  error

	imageOnce  sync.Once
	imageErr   error
	imageBuilt bool
	// buildDir is the image's build context; it keeps the static llmgate
	// binary (at binPath) for the CLI tests until the test binary exits.
	buildDir, binPath string
)

// requireDocker skips the test under -short (the fast loop) and when no
// Docker daemon answers, or fails it under CI=true, where the container
// tests must run.
func requireDocker(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("container test: runs in the full test run (make test), not under -short")
	}
	dockerOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cli, err := tc.NewDockerClientWithOpts(ctx)
		if err != nil {
			dockerErr = err
			return
		}
		defer cli.Close()
		_, dockerErr = cli.Ping(ctx, client.PingOptions{})
	})
	if dockerErr == nil {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("no Docker daemon reachable, and CI=true requires the container tests to run: %v", dockerErr)
	}
	t.Skipf("skipping container test: no Docker daemon reachable (%v); set DOCKER_HOST or start Docker to run it", dockerErr)
}

// simImage returns the simulator image, built once per test binary from the
// repository's Dockerfile around a static llmgate binary (the container tests
// must exercise the real image). LLMGATE_TEST_SIM_IMAGE names a prebuilt one
// instead, for debugging.
func simImage(t *testing.T) string {
	t.Helper()
	requireDocker(t)
	if img := os.Getenv("LLMGATE_TEST_SIM_IMAGE"); img != "" {
		return img
	}
	imageOnce.Do(func() { imageErr = buildSimImage() })
	if imageErr != nil {
		t.Fatalf("build the simulator image: %v", imageErr)
	}
	return simTestImage
}

func buildSimImage() error {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "llmgate-sim-image-")
	if err != nil {
		return err
	}
	buildDir = dir

	dockerfile, err := os.ReadFile(filepath.Join(root, "Dockerfile"))
	if err != nil {
		return fmt.Errorf("the repository's Dockerfile: %w", err)
	}
	srcs, err := binarySources(string(dockerfile))
	if err != nil {
		return err
	}
	for dest, pkg := range imageBinaries {
		bin := filepath.Join(dir, filepath.FromSlash(srcs[dest]))
		build := exec.Command("go", "build", "-trimpath", "-o", bin, pkg)
		build.Dir = root
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s: %w\n%s", pkg, err, out)
		}
		if dest == "/llmgate" {
			binPath = bin
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "Dockerfile"), dockerfile, 0o644); err != nil {
		return err
	}

	p, err := tc.NewDockerProvider()
	if err != nil {
		return err
	}
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	_, err = p.BuildImage(ctx, &tc.ContainerRequest{FromDockerfile: tc.FromDockerfile{
		Context:   dir,
		Repo:      simImageRepo,
		Tag:       simImageTag,
		KeepImage: true,
	}})
	imageBuilt = err == nil
	return err
}

// assertNoContainers fails when anything labelled with session is left, running or not.
func assertNoContainers(t *testing.T, session string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(t.Context()), time.Minute)
	defer cancel()
	ids, err := SessionContainers(ctx, session)
	if err != nil {
		t.Fatalf("list containers of session %s: %v", session, err)
	}
	if len(ids) > 0 {
		t.Errorf("%d container(s) of session %s left behind: %v", len(ids), session, ids)
		_ = Cleanup(ctx, session)
	}
}

// newSession returns a session id for one container test and checks, when
// the test ends, that none of its containers are left.
func newSession(t *testing.T) string {
	t.Helper()
	requireDocker(t) // skip (or fail under CI) before registering a check that needs Docker
	s := "test-" + NewSession()
	t.Cleanup(func() { assertNoContainers(t, s) })
	return s
}

// imageBinaries are the binaries the simulator image holds: where the
// Dockerfile puts each, and the package it is built from.
var imageBinaries = map[string]string{
	"/llmgate":            "./cmd/llmgate",
	"/usr/bin/nvidia-smi": "./internal/cmd/nvidia-smi",
}

// binarySources finds where the Dockerfile copies each of imageBinaries
// from ("COPY bin/llmgate /llmgate"), keyed by its place in the image.
func binarySources(dockerfile string) (map[string]string, error) {
	srcs := map[string]string{}
	for line := range strings.Lines(dockerfile) {
		f := strings.Fields(line)
		if len(f) == 3 && strings.EqualFold(f[0], "COPY") && imageBinaries[f[2]] != "" {
			srcs[f[2]] = f[1]
		}
	}
	for dest := range imageBinaries {
		if srcs[dest] == "" {
			return nil, fmt.Errorf("the repository's Dockerfile has no \"COPY <binary> %s\" line", dest)
		}
	}
	return srcs, nil
}

// llmgateBinary returns the static llmgate binary built for the image.
func llmgateBinary(t *testing.T) string {
	t.Helper()
	if os.Getenv("LLMGATE_TEST_SIM_IMAGE") != "" {
		t.Skip("LLMGATE_TEST_SIM_IMAGE is set: no llmgate binary was built")
	}
	simImage(t)
	return binPath
}
