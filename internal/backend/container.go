package backend

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/mount"
	"github.com/moby/moby/api/types/network"
	tc "github.com/testcontainers/testcontainers-go"
)

// stopGrace is how long a container gets to shut down before it is killed:
// short enough that a cancelled GitHub Actions job, which sends SIGINT and
// kills the process 7.5 s later, still sees the container removed.
// cleanupBudget bounds everything Stop and the start-failure path do, even
// when the caller's context is already cancelled (SIGINT).
const (
	stopGrace     = 5 * time.Second
	cleanupBudget = 60 * time.Second
)

// Container is a vLLM-compatible server running in a Docker container. It
// implements Instance.
type Container struct {
	ctr     *tc.DockerContainer
	cli     *tc.DockerClient
	image   string
	model   string
	apiKey  string
	baseURL string
	meta    Metadata
	logs    *logFollower
	ready   *healthStrategy
	// sampleGPUs: nvidia-smi is read during runs (GPUs requested, or WithGPUSampling).
	sampleGPUs bool
	key        string // LabelContainer's value: finds the container if create returned none
	// pulled is the image as testcontainers asks the daemon for it, and
	// hadImage whether the daemon had it before the start (else it pulls).
	pulled   string
	hadImage bool

	// track follows the container from the create call on, so every
	// failure path can remove it, whether or not testcontainers returned it.
	track createTracker
	// startup is created to ready, nil until the container is ready.
	startup *results.Startup

	stopOnce sync.Once
	stopErr  error
}

var _ Instance = (*Container)(nil)

// Run starts image with the options applied over the defaults (port 8000
// mapped to a random host port, cache volumes, a 20 minute startup timeout)
// and waits until GET /health answers 200. A container that exits while
// starting fails at once with a *StartError carrying its exit code and last
// log lines. As with testcontainers modules, the container is returned even
// with an error whenever one was created: call Stop on it in every case (Stop
// on a nil *Container does nothing).
func Run(ctx context.Context, image string, opts ...ContainerOption) (*Container, error) {
	if image == "" {
		return nil, errors.New("start container: empty image")
	}
	s := defaultSettings()
	for _, opt := range opts {
		if err := opt(s); err != nil {
			return nil, fmt.Errorf("start container %s: %w", image, err)
		}
	}
	if s.cacheErr != nil {
		return nil, fmt.Errorf("start container %s: %w", image, s.cacheErr)
	}
	mounts, err := s.mounts()
	if err != nil {
		return nil, fmt.Errorf("start container %s: %w", image, err)
	}

	// Before testcontainers' first Docker client, which fixes whether it
	// starts its reaper for the rest of the process.
	if note := prepareReaper(ctx); note != "" && s.notice != nil {
		s.notice(note)
	}
	cli, err := tc.NewDockerClientWithOpts(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("start container %s: interrupted: %w", image, context.Cause(ctx))
		}
		return nil, unavailable(fmt.Errorf("start container %s: connect to docker: %w", image, err))
	}

	if s.publishIP, err = publishAddr(cli.DaemonHost()); err != nil {
		_ = cli.Close()
		return nil, fmt.Errorf("start container %s: %w", image, err)
	}
	port := s.containerPort()
	c := &Container{cli: cli, image: image, model: s.model, apiKey: s.apiKey, ready: newHealthStrategy(s.startupTimeout, port), key: NewSession(), sampleGPUs: s.gpus != nil || s.sampleGPUs}
	if s.logFile != "" {
		c.logs, err = newLogFollower(cli, s.logFile)
		if err != nil {
			_ = cli.Close()
			return nil, fmt.Errorf("start container %s: %w", image, err)
		}
	}

	defer func() {
		// A panic inside testcontainers may come after the daemon created
		// the container: remove it, by its label if need be, then go on
		// panicking.
		if p := recover(); p != nil {
			if c.ctr == nil {
				c.removeOrphan(ctx)
				c.removeTracked(ctx)
			}
			_ = c.Stop(ctx)
			panic(p)
		}
	}()
	c.pulled = pulledImage(image)
	c.hadImage = hasImage(ctx, cli, c.pulled)
	ctr, err := tc.Run(ctx, image, s.request(c, mounts, port)...)
	c.ctr = ctr
	if err != nil {
		if s.gpus != nil && s.gpuCheck && noGPUDriver(err) && ctx.Err() == nil {
			err = fmt.Errorf("start container %s: %w", image, gpuUnavailable(ctx, cli, err))
		} else {
			err = c.startFailure(ctx, err)
		}
		if ctr == nil {
			// Create may have gone through on the daemon even so (ctx was
			// cancelled mid-call): remove whatever carries this start's label.
			c.removeOrphan(ctx)
			c.removeTracked(ctx)
			_ = c.Stop(ctx) // closes the client and the log file
			return nil, err
		}
		return c, err
	}

	hostPort, err := ctr.MappedPort(ctx, port)
	if err != nil {
		return c, unavailable(fmt.Errorf("container %s: find the mapped port: %w", image, err))
	}
	host := c.ready.readyHost()
	if host == "" {
		// A customizer replaced the readiness check: trust testcontainers' host.
		if host, err = ctr.Host(ctx); err != nil {
			return c, unavailable(fmt.Errorf("container %s: find its host: %w", image, err))
		}
	}
	c.baseURL = "http://" + net.JoinHostPort(host, hostPort.Port())
	model, err := checkModel(ctx, c.baseURL, c.apiKey, c.model, s.args, s.modelFlag)
	if err != nil {
		return c, unavailable(fmt.Errorf("container %s: %w", image, err))
	}
	c.timeStartup(ctx, time.Now())
	c.meta = c.collectMetadata(ctx, model)
	return c, nil
}

// request turns the settings into testcontainers options: defaults first,
// the caller's raw customizers last.
func (s *settings) request(c *Container, mounts []mount.Mount, port string) []tc.ContainerCustomizer {
	labels := maps.Clone(s.labels)
	labels[LabelContainer] = c.key
	if s.session != "" {
		labels[LabelSession] = s.session
	}
	opts := []tc.ContainerCustomizer{
		tc.WithAdditionalLifecycleHooks(c.track.hooks()),
		tc.WithCmd(s.cmd()...),
		tc.WithExposedPorts(port),
		tc.WithEnv(s.env),
		tc.WithLabels(labels),
		tc.WithHostConfigModifier(func(h *container.HostConfig) { s.hostConfig(h, mounts) }),
		tc.WithWaitStrategyAndDeadline(s.startupTimeout, c.ready),
	}
	if s.logger != nil {
		opts = append(opts, tc.WithLogger(s.logger))
	}
	if c.logs != nil {
		opts = append(opts, tc.WithAdditionalLifecycleHooks(tc.ContainerLifecycleHooks{
			PostStarts: []tc.ContainerHook{func(_ context.Context, ctr tc.Container) error {
				c.logs.follow(ctr.GetContainerID())
				return nil
			}},
		}))
	}
	return append(opts, s.customizers...)
}

// hostConfig sets the GPUs (as `docker run --gpus` does), the IPC mode,
// /dev/shm's size and the mounts. A GPU container with neither an IPC mode
// nor a shm size gets ipc=host, as vLLM's docs ask: its workers share
// tensors through shared memory, and Docker's default 64 MiB /dev/shm
// makes tensor-parallel serving fail.
func (s *settings) hostConfig(h *container.HostConfig, mounts []mount.Mount) {
	if s.gpus != nil {
		h.DeviceRequests = append(h.DeviceRequests, s.gpus.deviceRequest())
	}
	switch {
	case s.ipc != "":
		h.IpcMode = container.IpcMode(s.ipc)
	case s.gpus != nil && s.shmSize == 0:
		h.IpcMode = container.IPCModeHost
	}
	if s.shmSize > 0 {
		h.ShmSize = s.shmSize
	}
	h.Mounts = append(h.Mounts, mounts...)
	if s.publishIP.IsValid() {
		if p, err := network.ParsePort(s.containerPort()); err == nil {
			// testcontainers keeps a binding given here for an exposed port
			h.PortBindings = network.PortMap{p: {{HostIP: s.publishIP, HostPort: "0"}}}
		}
	}
}

// containerPort is the port the server listens on inside the container:
// ContainerPort, or what a --port in the args says.
func (s *settings) containerPort() string {
	port := ""
	for i, a := range s.args {
		switch {
		case a == "--port" && i+1 < len(s.args):
			port = s.args[i+1]
		case strings.HasPrefix(a, "--port="):
			port = strings.TrimPrefix(a, "--port=")
		}
	}
	if port == "" {
		return ContainerPort
	}
	return port + "/tcp"
}

// cmd is what follows the image's entrypoint: the model, the args, the API key.
func (s *settings) cmd() []string {
	var cmd []string
	switch {
	case s.model == "":
	case s.modelFlag:
		cmd = append(cmd, "--model", s.model)
	default:
		cmd = append(cmd, s.model)
	}
	cmd = append(cmd, s.args...)
	if s.apiKey != "" {
		cmd = append(cmd, "--api-key", s.apiKey)
	}
	return cmd
}

// mounts turns the volume table into Docker mounts: host paths bind, names are volumes.
func (s *settings) mounts() ([]mount.Mount, error) {
	var out []mount.Mount
	for _, dst := range slices.Sorted(maps.Keys(s.volumes)) {
		src := s.volumes[dst]
		switch {
		case src == "":
			continue
		case strings.HasPrefix(src, "/"), strings.HasPrefix(src, "."), strings.HasPrefix(src, "~"):
			if strings.HasPrefix(src, "~") {
				return nil, fmt.Errorf("volume %q: write the home directory out in full; \"~\" is not expanded", src)
			}
			abs, err := filepath.Abs(src)
			if err != nil {
				return nil, fmt.Errorf("volume %q: %w", src, err)
			}
			if why := runspec.HostMountRisk(abs); why != "" && !s.unsafeHostMounts {
				return nil, fmt.Errorf("volume %q: %s, so the container could take over the host; refused (set unsafe_host_mounts = true for a runner whose every job you trust)", src, why)
			}
			out = append(out, mount.Mount{Type: mount.TypeBind, Source: abs, Target: dst})
		default:
			out = append(out, mount.Mount{Type: mount.TypeVolume, Source: src, Target: dst})
		}
	}
	return out, nil
}

// startFailure explains a failed start: interrupted, exited (with its code and
// log tail) or not ready in time.
func (c *Container) startFailure(ctx context.Context, cause error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("start container %s: interrupted: %w", c.image, context.Cause(ctx))
	}
	if err := reaperFailure(c.image, cause); err != nil {
		return unavailable(err) // the server's container was created, never started
	}
	if c.ctr == nil {
		if !c.hadImage && !hasImage(ctx, c.cli, c.pulled) {
			return unavailable(&missingImageError{image: c.pulled, err: cause})
		}
		return unavailable(fmt.Errorf("start container %s: %w", c.image, cause))
	}
	se := &StartError{Image: c.image, Err: cause}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if st, err := c.ctr.State(cctx); err == nil && !st.Running {
		se.Exited = st.Status == container.StateExited || st.Status == container.StateDead
		se.ExitCode = st.ExitCode
		se.OOMKilled = st.OOMKilled
	}
	se.LogTail, _ = tailLogs(cctx, c.cli, c.ctr.GetContainerID(), LogTailLines)
	return se
}

// orphanSettle is how long removeOrphan keeps at it: the daemon finishes a
// create its client abandoned a moment later, and refuses to remove a
// container while its create is still going on.
const orphanSettle = 5 * time.Second

// removeOrphan removes a container that the daemon created although the
// create call failed, found by its LabelContainer label. When the create
// was sent and never answered (a signal mid-call), the container may not be
// listed yet, or not be removable yet: it looks and removes again until the
// label lists nothing, for up to orphanSettle.
func (c *Container) removeOrphan(ctx context.Context) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	deadline := time.Now().Add(orphanSettle)
	removed := false
	for {
		ids, err := listLabelled(cctx, c.cli, LabelContainer, c.key)
		switch {
		case err == nil && len(ids) > 0:
			if removeAll(cctx, c.cli, ids) == nil {
				removed = true
			}
		case err == nil && (removed || !c.track.inFlight()):
			return // nothing (left) to remove
		}
		if time.Now().After(deadline) {
			return
		}
		select {
		case <-cctx.Done():
			return
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// removeTracked removes the container the create hook saw, if any.
func (c *Container) removeTracked(ctx context.Context) {
	id := c.track.id()
	if id == "" {
		return
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	_ = removeAll(cctx, c.cli, []string{id})
}

// createTracker records, through testcontainers' lifecycle hooks, that a
// create call was sent and which container it made.
type createTracker struct {
	mu      sync.Mutex
	sent    bool
	created string
	at      time.Time // when the create answered
}

func (t *createTracker) hooks() tc.ContainerLifecycleHooks {
	return tc.ContainerLifecycleHooks{
		PreCreates: []tc.ContainerRequestHook{func(context.Context, tc.ContainerRequest) error {
			t.mu.Lock()
			t.sent = true
			t.mu.Unlock()
			return nil
		}},
		PostCreates: []tc.ContainerHook{func(_ context.Context, ctr tc.Container) error {
			t.mu.Lock()
			t.created = ctr.GetContainerID()
			t.at = time.Now()
			t.mu.Unlock()
			return nil
		}},
	}
}

// inFlight reports whether a create was sent without its answer being seen.
func (t *createTracker) inFlight() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.sent && t.created == ""
}

// createdAt is when the create answered; zero before.
func (t *createTracker) createdAt() time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.at
}

// id is the created container's id, "" before the create answered.
func (t *createTracker) id() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.created
}

// BaseURL is the server's root on the host, e.g. "http://127.0.0.1:32768".
func (c *Container) BaseURL() string { return c.baseURL }

// Model is the served model name (from /v1/models, else the configured model).
func (c *Container) Model() string { return c.meta.Model }

// Metadata describes the image, vLLM version, GPU and model.
func (c *Container) Metadata() Metadata { return c.meta }

// ID is the Docker container id ("" before one was created).
func (c *Container) ID() string {
	if c == nil || c.ctr == nil {
		return ""
	}
	return c.ctr.GetContainerID()
}

// Docker gives access to the underlying testcontainers container (nil when
// none was created), for what this type does not cover.
func (c *Container) Docker() *tc.DockerContainer { return c.ctr }

// Stop stops the container (5 s grace, then kill), finishes the log file and
// removes the container with its anonymous volumes. It works with a cancelled
// context, so callers can defer it on every path (error, SIGINT, panic). It
// is safe to call twice and on a nil *Container; a container someone else
// already removed (Cleanup) is not an error.
func (c *Container) Stop(ctx context.Context) error {
	if c == nil {
		return nil
	}
	c.stopOnce.Do(func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupBudget)
		defer cancel()
		var errs []error
		if c.ctr != nil {
			if err := c.ctr.Stop(cctx, new(stopGrace)); err != nil && !cerrdefs.IsNotFound(err) {
				errs = append(errs, fmt.Errorf("stop container %s: %w", c.ctr.GetContainerID(), err))
			}
		}
		if c.logs != nil {
			if err := c.logs.close(cctx); err != nil {
				errs = append(errs, err)
			}
		}
		if c.ctr != nil {
			if err := c.ctr.Terminate(cctx); err != nil && !cerrdefs.IsNotFound(err) {
				// Terminate gives up when its stop fails (a container
				// that never started, say): force-remove it by id.
				if rerr := removeAll(cctx, c.cli, []string{c.ctr.GetContainerID()}); rerr != nil {
					errs = append(errs, fmt.Errorf("remove container %s: %w", c.ctr.GetContainerID(), errors.Join(err, rerr)))
				}
			}
		} else if c.cli != nil {
			c.removeTracked(cctx)
		}
		if c.cli != nil {
			_ = c.cli.Close()
		}
		c.stopErr = errors.Join(errs...)
	})
	return c.stopErr
}
