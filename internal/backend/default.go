package backend

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/llmgate/llmgate/runspec"
	tclog "github.com/testcontainers/testcontainers-go/log"
)

// Default is the Starter the CLI uses: it dispatches on the spec's Kind to a
// container (Run), an endpoint (NewEndpoint) or the in-process simulator
// (StartSimulator). The zero value is ready to use.
type Default struct {
	// Session labels the containers it starts (LabelSession); "" means
	// ProcessSession(), so Cleanup(ctx, ProcessSession()) finds them.
	Session string
	// Logger receives testcontainers' progress lines; nil silences them.
	Logger tclog.Logger
	// ContainerOptions are applied to every container after the spec's own.
	ContainerOptions []ContainerOption
}

var _ Starter = Default{}

var (
	processSessionOnce sync.Once
	processSession     string
	processSessionUsed atomic.Bool
)

// ProcessSession is the session id Default uses when none is set: one random
// id per process, so a signal handler can remove what this process started.
func ProcessSession() string {
	processSessionOnce.Do(func() {
		processSession = NewSession()
		processSessionUsed.Store(true)
	})
	return processSession
}

// ProcessSessionUsed reports whether ProcessSession was asked for, that is
// whether this process may have started a container under it.
func ProcessSessionUsed() bool { return processSessionUsed.Load() }

// Start brings up the target spec describes. For a container it returns the
// instance together with the error when one was created, so the caller can
// Stop it (and so remove it) on every path.
func (d Default) Start(ctx context.Context, spec runspec.Target, opts StartOptions) (Instance, error) {
	switch spec.Kind {
	case runspec.KindServer:
		c, err := Run(ctx, spec.Image, d.containerOptions(spec, opts)...)
		if c == nil {
			return nil, err
		}
		return c, err
	case runspec.KindEndpoint:
		e, err := NewEndpoint(ctx, spec.URL, spec.Model, spec.APIKey)
		if err != nil {
			return nil, err
		}
		return e, nil
	case runspec.KindSimulator:
		s, err := StartSimulator(ctx, spec.Model, spec.Profile, spec.APIKey, spec.Args)
		if err != nil {
			return nil, err
		}
		return s, nil
	default:
		return nil, fmt.Errorf("target %q: unknown kind %q (want %s, %s or %s)", spec.Name, spec.Kind, runspec.KindServer, runspec.KindEndpoint, runspec.KindSimulator)
	}
}

// containerOptions turns a server spec into Run's options.
func (d Default) containerOptions(spec runspec.Target, start StartOptions) []ContainerOption {
	session := d.Session
	if session == "" {
		session = ProcessSession()
	}
	opts := []ContainerOption{
		WithSession(session),
		WithLogger(d.Logger),
		WithModel(spec.Model),
		WithArgs(spec.Args...),
		WithEnv(spec.Env),
		WithGPUs(spec.GPUs),
		WithIPC(spec.IPC),
		WithShmSize(spec.ShmSize),
		WithAPIKey(spec.APIKey),
	}
	if spec.Name != "" {
		opts = append(opts, WithLabels(map[string]string{LabelTarget: spec.Name}))
	}
	if spec.ModelFlag {
		opts = append(opts, WithModelFlag())
	}
	if spec.Volumes != nil {
		opts = append(opts, WithVolumes(spec.Volumes))
	}
	if spec.UnsafeHostMounts {
		opts = append(opts, WithUnsafeHostMounts())
	}
	if spec.StartupTimeout > 0 {
		opts = append(opts, WithStartupTimeout(spec.StartupTimeout))
	}
	if start.LogPath != "" {
		opts = append(opts, WithLogFile(start.LogPath))
	}
	if start.Notice != nil {
		opts = append(opts, WithNotice(start.Notice))
	}
	return append(opts, d.ContainerOptions...)
}
