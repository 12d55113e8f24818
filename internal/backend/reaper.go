package backend

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/llmgate/llmgate/untrusted"
	"github.com/moby/moby/client"
	tc "github.com/testcontainers/testcontainers-go"
)

// testcontainers-go starts a reaper container (Ryuk) beside the first
// container of a process, which removes them all when the process dies. Its
// image comes from Docker Hub, and a runner that cannot reach the Hub fails
// every start with "reaper: new reaper: ... no such host". llmgate does not
// need the reaper: it removes its own containers, by label, on every path
// (and after a SIGKILL with the command docs/servers.md gives). So when the
// reaper's image is not on the machine and cannot be pulled, llmgate goes on
// without it and says so once.
//
// testcontainers reads whether the reaper is wanted once per process, from
// TESTCONTAINERS_RYUK_DISABLED (or ~/.testcontainers.properties), the first
// time it makes a Docker client; the check must come before that, so it uses
// a Docker client of its own, from the environment (DOCKER_HOST or the
// default socket).

// ReaperImage is testcontainers-go's reaper image in the version go.mod
// requires (its internal config.ReaperDefaultImage); a test checks the two
// agree.
const ReaperImage = "testcontainers/ryuk:0.14.0"

// reaperPullTimeout bounds the pull of the reaper's image (a few MB): a
// registry that does not answer within it is as good as none.
const reaperPullTimeout = 60 * time.Second

const ryukDisabledEnv = "TESTCONTAINERS_RYUK_DISABLED"

var reaperCheck struct {
	once sync.Once
	mu   sync.Mutex
	note string // said once, by the first takeReaperNote after the check
}

// prepareReaper runs the reaper check once per process, before
// testcontainers' first Docker client, and returns its note the first time
// there is one ("" otherwise).
func prepareReaper(ctx context.Context) string {
	reaperCheck.once.Do(func() {
		env := reaperEnv{lookup: os.LookupEnv, set: os.Setenv, home: os.UserHomeDir,
			disabled: func() bool { return tc.ReadConfig().RyukDisabled }}
		note := checkReaper(ctx, env, dockerFromEnv)
		reaperCheck.mu.Lock()
		reaperCheck.note = note
		reaperCheck.mu.Unlock()
	})
	reaperCheck.mu.Lock()
	defer reaperCheck.mu.Unlock()
	note := reaperCheck.note
	reaperCheck.note = ""
	return note
}

// reaperEnv is the process environment the check reads and sets.
type reaperEnv struct {
	lookup func(string) (string, bool)
	set    func(string, string) error
	home   func() (string, error)
	// disabled is whether testcontainers, reading its configuration now,
	// runs without the reaper: false after the env was set means it had
	// read it before.
	disabled func() bool
}

// imageAPI is what the check asks of the Docker daemon.
type imageAPI interface {
	ImageInspect(ctx context.Context, image string, opts ...client.ImageInspectOption) (client.ImageInspectResult, error)
	ImagePull(ctx context.Context, ref string, opts client.ImagePullOptions) (client.ImagePullResponse, error)
	Close() error
}

// dockerFromEnv is a Docker client from the environment that answers a
// ping, or an error.
func dockerFromEnv(ctx context.Context) (imageAPI, error) {
	cli, err := client.New(client.FromEnv, client.WithAPIVersionNegotiation())
	if err != nil {
		return nil, err
	}
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := cli.Ping(pctx, client.PingOptions{}); err != nil {
		_ = cli.Close()
		return nil, err
	}
	return cli, nil
}

// checkReaper decides whether testcontainers may start its reaper: unless
// the environment or the properties file already says, the reaper's image
// must be on the machine or be pulled now. When it can be neither, it sets
// TESTCONTAINERS_RYUK_DISABLED=true and returns the note that says so; it
// returns "" when nothing changed. A daemon it cannot reach is left to
// testcontainers to report.
func checkReaper(ctx context.Context, env reaperEnv, docker func(context.Context) (imageAPI, error)) string {
	if _, set := env.lookup(ryukDisabledEnv); set || ryukDisabledInProperties(env) {
		return ""
	}
	cli, err := docker(ctx)
	if err != nil {
		return ""
	}
	defer cli.Close()
	image := reaperImageName(env)
	if _, err := cli.ImageInspect(ctx, image); err == nil {
		return ""
	} else if !cerrdefs.IsNotFound(err) {
		return ""
	}
	perr := pullImage(ctx, cli, image, reaperPullTimeout)
	if perr == nil {
		return ""
	}
	if ctx.Err() != nil {
		return "" // interrupted: the start fails on its own
	}
	if err := env.set(ryukDisabledEnv, "true"); err != nil || !env.disabled() {
		return "" // too late: the start fails in the reaper, and reaperFailure says why
	}
	return fmt.Sprintf("testcontainers' reaper image %s is not on this machine and cannot be pulled (%s); going on without the reaper: llmgate removes its own containers (after a kill -9: docker rm -f $(docker ps -aq --filter label=%s)). Set %s=true to skip this check.",
		image, untrusted.FirstLine(perr.Error(), 300), LabelSession, ryukDisabledEnv)
}

// reaperImageName is the reaper image as testcontainers will ask for it:
// under TESTCONTAINERS_HUB_IMAGE_NAME_PREFIX when that is set.
func reaperImageName(env reaperEnv) string {
	if p, ok := env.lookup("TESTCONTAINERS_HUB_IMAGE_NAME_PREFIX"); ok && p != "" {
		return path.Join(p, ReaperImage)
	}
	return ReaperImage
}

// ryukDisabledInProperties reports whether ~/.testcontainers.properties
// says ryuk.disabled=true.
func ryukDisabledInProperties(env reaperEnv) bool {
	home, err := env.home()
	if err != nil {
		return false
	}
	f, err := os.Open(filepath.Join(home, ".testcontainers.properties"))
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if ok && strings.TrimSpace(k) == "ryuk.disabled" {
			return strings.TrimSpace(v) == "true"
		}
	}
	return false
}

// pullImage pulls image and waits for the pull to end, for at most limit.
func pullImage(ctx context.Context, cli imageAPI, image string, limit time.Duration) error {
	pctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	resp, err := cli.ImagePull(pctx, image, client.ImagePullOptions{})
	if err != nil {
		return err
	}
	defer resp.Close()
	if err := resp.Wait(pctx); err != nil {
		if pctx.Err() != nil && ctx.Err() == nil {
			return fmt.Errorf("the pull did not end within %s: %w", limit, err)
		}
		return err
	}
	return nil
}

// reaperFailure explains a start that failed in testcontainers' reaper
// (its image is on the machine but it did not start, or the check could not
// reach the daemon), or returns nil when err is no such failure. It names
// the reaper's image, not the server's, which testcontainers' own words do
// not: "generic container: create container: reaper: new reaper: ...".
// It is found by those words because testcontainers-go wraps its reaper's
// errors with fmt.Errorf ("reaper: %w", "reaper connect: %w") and exports
// no type or sentinel for them (v0.45.0).
func reaperFailure(image string, err error) error {
	msg := err.Error()
	i := strings.Index(msg, "reaper: ")
	if j := strings.Index(msg, "reaper connect: "); j >= 0 && (i < 0 || j < i) {
		i = j
	}
	if i < 0 {
		return nil
	}
	return &reaperError{image: image, reaper: reaperImageName(reaperEnv{lookup: os.LookupEnv}), cause: msg[i:], err: err}
}

// reaperError is a start that testcontainers' reaper stopped.
type reaperError struct {
	image, reaper, cause string
	err                  error
}

func (e *reaperError) Error() string {
	return fmt.Sprintf("start container %s: testcontainers' reaper (image %s) did not start, so neither did the server: %s; set %s=true to go on without the reaper (llmgate removes its own containers)",
		e.image, e.reaper, e.cause, ryukDisabledEnv)
}

func (e *reaperError) Unwrap() error { return e.err }

// pulledImage is image as testcontainers asks the daemon for it: under
// TESTCONTAINERS_HUB_IMAGE_NAME_PREFIX when that is set and the image is
// on Docker Hub without the registry written out.
func pulledImage(image string) string {
	p := os.Getenv("TESTCONTAINERS_HUB_IMAGE_NAME_PREFIX")
	if p == "" {
		return image
	}
	first, _, found := strings.Cut(image, "/")
	if found && (strings.ContainsAny(first, ".:") || first == "localhost") {
		return image // another registry, docker.io written out included
	}
	return path.Join(p, image)
}

// hasImage reports whether the daemon has image; true when it cannot say,
// so that only an image known to be missing is blamed.
func hasImage(ctx context.Context, cli client.ImageAPIClient, image string) bool {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	_, err := cli.ImageInspect(cctx, image)
	return !cerrdefs.IsNotFound(err)
}

// missingImageError is a start that failed because its image is not on the
// machine and could not be pulled.
type missingImageError struct {
	image string
	err   error
}

func (e *missingImageError) Error() string {
	cause := e.err.Error()
	if i := strings.Index(cause, "Error response from daemon: "); i >= 0 {
		cause = cause[i+len("Error response from daemon: "):]
	}
	return fmt.Sprintf("image %s is not on this machine and could not be pulled: %s; pull it where its registry can be reached (docker pull %s, then docker save | docker load here), or name an image this machine has (docker images)",
		e.image, cause, e.image)
}

func (e *missingImageError) Unwrap() error { return e.err }
