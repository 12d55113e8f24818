package backend

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/client"
	tc "github.com/testcontainers/testcontainers-go"
)

// reaperChildEnv makes TestReaperChild run (and TestMain leave
// TESTCONTAINERS_RYUK_DISABLED unset): it is the process that
// TestRunGoesOnWithoutReaperImage starts.
const reaperChildEnv = "LLMGATE_TEST_REAPER_CHILD"

// reaperChildModeEnv is "early" when the child reads testcontainers'
// configuration before its first Run.
const reaperChildModeEnv = "LLMGATE_TEST_REAPER_CHILD_MODE"

// noRegistry is an address where no registry answers: a pull from it is
// refused at once, on a machine that reaches Docker Hub as on one that
// does not.
const noRegistry = "127.0.0.1:1"

// TestRunGoesOnWithoutReaperImage checks a process where
// TESTCONTAINERS_RYUK_DISABLED is not set, and testcontainers' reaper image
// is not on the machine and cannot be pulled, still starts its servers:
// without the reaper, saying so once, and in bounded time. The reaper is
// decided once per process, so the check runs in a process of its own
// (TestReaperChild), with the reaper's image under a registry prefix that
// cannot be reached.
func TestRunGoesOnWithoutReaperImage(t *testing.T) {
	runReaperChild(t, "")
}

// TestRunNamesTheReaperThatFailed checks the same process, where
// testcontainers read its configuration before llmgate could decide (so the
// reaper is still wanted), fails the start naming the reaper's image and the
// way out, not the server's image, and leaves no container behind.
func TestRunNamesTheReaperThatFailed(t *testing.T) {
	runReaperChild(t, "early")
}

// runReaperChild runs TestReaperChild in a process of its own, in mode
// ("" or "early": testcontainers reads its configuration first).
func runReaperChild(t *testing.T, mode string) {
	image := taggedInRegistry(t, simImage(t))
	session := newSession(t)
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestReaperChild$", "-test.v")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, ryukDisabledEnv+"=") && !strings.HasPrefix(kv, "TESTCONTAINERS_HUB_IMAGE_NAME_PREFIX=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env,
		reaperChildEnv+"="+session,
		reaperChildModeEnv+"="+mode,
		// Under the prefix the reaper's image cannot be had; the server's,
		// named with a registry, is left as it is.
		"TESTCONTAINERS_HUB_IMAGE_NAME_PREFIX="+noRegistry,
		"LLMGATE_TEST_SIM_IMAGE="+image)
	t0 := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestReaperChild") {
		t.Fatalf("child process: %v\n%s", err, out)
	}
	t.Logf("child process took %s", time.Since(t0).Round(time.Millisecond))
}

// taggedInRegistry tags image under a registry's name for the test (and
// removes the tag after it), so that no hub prefix applies to it: the
// daemon has it, and nothing is pulled.
func taggedInRegistry(t *testing.T, image string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cli, err := tc.NewDockerClientWithOpts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	tagged := "127.0.0.1:5000/llmgate-sim:reaper-" + NewSession()
	if _, err := cli.ImageTag(ctx, client.ImageTagOptions{Source: image, Target: tagged}); err != nil {
		t.Fatalf("tag %s as %s: %v", image, tagged, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cli, err := tc.NewDockerClientWithOpts(ctx)
		if err == nil {
			defer cli.Close()
			_, err = cli.ImageRemove(ctx, tagged, client.ImageRemoveOptions{})
		}
		if err != nil {
			t.Errorf("untag %s: %v", tagged, err)
		}
	})
	return tagged
}

// TestReaperChild is the process TestRunGoesOnWithoutReaperImage starts.
func TestReaperChild(t *testing.T) {
	session := os.Getenv(reaperChildEnv)
	if session == "" {
		t.Skip("the child process of TestRunGoesOnWithoutReaperImage")
	}
	if _, set := os.LookupEnv(ryukDisabledEnv); set {
		t.Fatalf("%s is set in the child", ryukDisabledEnv)
	}
	if os.Getenv(reaperChildModeEnv) == "early" {
		reaperChildEarly(t, session)
		return
	}
	var notes []string
	for i := range 2 {
		c, err := Run(t.Context(), os.Getenv("LLMGATE_TEST_SIM_IMAGE"), WithSession(session), WithoutVolumes(),
			WithModel("test-model"), WithArgs("--profile", "tiny"), WithStartupTimeout(2*time.Minute),
			WithNotice(func(s string) { notes = append(notes, s) }))
		if err != nil {
			_ = c.Stop(context.Background())
			t.Fatalf("start %d without the reaper: %v", i+1, err)
		}
		if code, _ := get(t, c.BaseURL()+"/health", ""); code != 200 {
			t.Errorf("start %d: GET /health = %d", i+1, code)
		}
		if err := c.Stop(context.Background()); err != nil {
			t.Errorf("stop %d: %v", i+1, err)
		}
	}
	if len(notes) != 1 {
		t.Fatalf("notes %q, want one (said once for two starts)", notes)
	}
	for _, want := range []string{noRegistry + "/" + ReaperImage, "cannot be pulled", "going on without the reaper", "docker rm -f"} {
		if !strings.Contains(notes[0], want) {
			t.Errorf("note lacks %q: %s", want, notes[0])
		}
	}
	if v := os.Getenv(ryukDisabledEnv); v != "true" {
		t.Errorf("%s=%q after the check, want true", ryukDisabledEnv, v)
	}
	// No reaper of this process's testcontainers session was started.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(t.Context()), time.Minute)
	defer cancel()
	cli, err := tc.NewDockerClientWithOpts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	if ids, err := listLabelled(ctx, cli, "org.testcontainers.sessionId", tc.SessionID()); err != nil || len(ids) > 0 {
		t.Errorf("containers of testcontainers' session (a reaper?): %v, %v", ids, err)
	}
}

// reaperChildEarly is TestReaperChild where testcontainers has read its
// configuration, reaper wanted, before the first Run.
func reaperChildEarly(t *testing.T, session string) {
	if tc.ReadConfig().RyukDisabled {
		t.Fatal("the reaper is disabled before the check")
	}
	var notes []string
	c, err := Run(t.Context(), os.Getenv("LLMGATE_TEST_SIM_IMAGE"), WithSession(session), WithoutVolumes(),
		WithModel("test-model"), WithArgs("--profile", "tiny"), WithStartupTimeout(2*time.Minute),
		WithNotice(func(s string) { notes = append(notes, s) }))
	if stopErr := c.Stop(context.Background()); stopErr != nil {
		t.Errorf("stop: %v", stopErr)
	}
	if err == nil {
		t.Fatal("started although the reaper could not be had")
	}
	if len(notes) != 0 {
		t.Errorf("notes %q: nothing was done without the reaper", notes)
	}
	want := "start container " + os.Getenv("LLMGATE_TEST_SIM_IMAGE") + ": testcontainers' reaper (image " + noRegistry + "/" + ReaperImage + ") did not start"
	if !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), ryukDisabledEnv+"=true") || !errors.Is(err, ErrUnavailable) {
		t.Errorf("error %q, want it to start with %q, say %s=true and be ErrUnavailable", err, want, ryukDisabledEnv)
	}
}

// TestRunNamesMissingImage checks a start whose image is not on the
// machine and cannot be pulled says which image, and that it could not be
// pulled, first; and is the server's unavailability (exit 3).
func TestRunNamesMissingImage(t *testing.T) {
	session := newSession(t)
	image := noRegistry + "/llmgate-missing:" + NewSession()
	c, err := Run(t.Context(), image, WithSession(session), WithoutVolumes(), WithStartupTimeout(time.Minute))
	if stopErr := c.Stop(context.Background()); stopErr != nil {
		t.Errorf("stop: %v", stopErr)
	}
	if err == nil {
		t.Fatal("started an image that does not exist")
	}
	want := "image " + image + " is not on this machine and could not be pulled: "
	if !strings.HasPrefix(err.Error(), want) || !errors.Is(err, ErrUnavailable) {
		t.Errorf("error %q, want it to start with %q and be ErrUnavailable", err, want)
	}
	if !strings.Contains(err.Error(), "docker pull "+image) {
		t.Errorf("error does not say how to get the image: %v", err)
	}
}

// TestReaperFailureNamesTheReaper checks a start that testcontainers'
// reaper stopped names the reaper's image and the way out, not the
// server's image as the one that "did not become ready".
func TestReaperFailureNamesTheReaper(t *testing.T) {
	cause := errors.New(`new reaper: run container: Error response from daemon: Get "https://registry-1.docker.io/v2/": no such host`)
	// testcontainers' own wrapping, as seen from a runner without Docker Hub.
	err := fmt.Errorf("generic container: %w", fmt.Errorf("create container: %w", fmt.Errorf("reaper: %w", cause)))
	got := reaperFailure("vllm/vllm-openai:v0.11.0", err)
	if got == nil {
		t.Fatal("not recognised as the reaper's failure")
	}
	for _, want := range []string{"start container vllm/vllm-openai:v0.11.0: testcontainers' reaper (image " + ReaperImage + ") did not start", "no such host", ryukDisabledEnv + "=true"} {
		if !strings.Contains(got.Error(), want) {
			t.Errorf("%q lacks %q", got, want)
		}
	}
	if !errors.Is(got, cause) {
		t.Error("the cause is not wrapped")
	}
	if reaperFailure("x", errors.New("create container: Error response from daemon: no space left on device")) != nil {
		t.Error("another failure taken for the reaper's")
	}
}

// TestCheckReaperLeavesAnExplicitChoice checks the reaper check asks
// nothing of Docker, and changes nothing, when the environment or
// ~/.testcontainers.properties already says whether to run the reaper.
func TestCheckReaperLeavesAnExplicitChoice(t *testing.T) {
	noDocker := func(context.Context) (imageAPI, error) {
		t.Error("the check asked Docker although the choice was made")
		return nil, errors.New("no")
	}
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, ".testcontainers.properties"), []byte("docker.host=unix:///x\nryuk.disabled = true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		env  map[string]string
		home string
	}{
		{name: "env true", env: map[string]string{ryukDisabledEnv: "true"}, home: t.TempDir()},
		{name: "env false", env: map[string]string{ryukDisabledEnv: "false"}, home: t.TempDir()},
		{name: "properties", env: map[string]string{}, home: home},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env := reaperEnv{
				lookup: func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok },
				set: func(k, v string) error {
					t.Errorf("set %s=%s", k, v)
					return nil
				},
				home: func() (string, error) { return tt.home, nil },
			}
			if note := checkReaper(t.Context(), env, noDocker); note != "" {
				t.Errorf("note %q", note)
			}
		})
	}
}

// TestReaperImageIsTestcontainers checks ReaperImage is the image the
// testcontainers-go that go.mod requires starts (its internal
// config.ReaperDefaultImage), so that the check looks for the right one.
func TestReaperImageIsTestcontainers(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/testcontainers/testcontainers-go").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	src, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "internal", "config", "config.go"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`ReaperDefaultImage\s*=\s*"([^"]+)"`).FindSubmatch(src)
	if m == nil {
		t.Fatal("testcontainers' config.go has no ReaperDefaultImage: did it move?")
	}
	if string(m[1]) != ReaperImage {
		t.Errorf("ReaperImage = %q, testcontainers starts %q", ReaperImage, m[1])
	}
}

var _ imageAPI = (*client.Client)(nil)
