package backend

import (
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"os"
	"regexp"
	"time"

	tc "github.com/testcontainers/testcontainers-go"
	tclog "github.com/testcontainers/testcontainers-go/log"
)

// Container defaults.
const (
	// ContainerPort is the port vLLM (and the simulator image) listen on
	// inside the container, unless the args say --port.
	ContainerPort = "8000/tcp"
	// DefaultStartupTimeout bounds the wait for GET /health when no timeout is given.
	// An 8B model with cached weights is usually serving within a minute or
	// two; a first download of its ~16 GB of weights can take much longer.
	DefaultStartupTimeout = 20 * time.Minute
	// LabelSession is set on every container to the session that started it, so
	// Cleanup can find leftovers.
	LabelSession = "org.llmgate.session"
	// LabelContainer is set to a random id per Run call, so a container whose
	// create call failed half-way can still be found and removed.
	LabelContainer = "org.llmgate.container"
	// LabelTarget is set to the suite's target block name.
	LabelTarget = "org.llmgate.target"
	// LogTailLines is how many log lines a StartError carries.
	LogTailLines = 50
)

// Default cache volumes: named volumes so weights and compiled graphs survive between runs.
const (
	HFCacheVolume   = "llmgate-hf-cache"
	VLLMCacheVolume = "llmgate-vllm-cache"
	HFCachePath     = "/root/.cache/huggingface"
	VLLMCachePath   = "/root/.cache/vllm"
)

// settings collects what the options set; Run turns it into a testcontainers request.
type settings struct {
	model      string
	modelFlag  bool
	args       []string
	env        map[string]string
	gpus       *gpuRequest
	gpuCheck   bool
	sampleGPUs bool
	ipc        string
	shmSize    int64
	volumes    map[string]string // container path -> source ("" = none)
	// unsafeHostMounts lets volumes mount what runspec.HostMountRisk refuses.
	unsafeHostMounts bool
	// cacheErr is a bad LLMGATE_CACHE_NAMESPACE, reported by Run.
	cacheErr error
	// publishIP is the host address the server's port is published on
	// (publishAddr); the zero value publishes on every interface.
	publishIP      netip.Addr
	startupTimeout time.Duration
	logFile        string
	apiKey         string
	session        string
	labels         map[string]string
	logger         tclog.Logger
	// notice receives what a start has to say beside its outcome (nil: nothing).
	notice      func(string)
	customizers []tc.ContainerCustomizer
}

// DevModeEnv is set to "1" in every server container (WithEnv may override
// it): it makes vLLM serve POST /reset_prefix_cache, which the runner calls
// between runs so that no run is measured on the previous one's cache hits.
const DevModeEnv = "VLLM_SERVER_DEV_MODE"

// KeepAliveEnv is set to KeepAliveSeconds in every server container (WithEnv
// may override it): vLLM's HTTP server (uvicorn) closes a keep-alive
// connection idle for VLLM_HTTP_TIMEOUT_KEEP_ALIVE seconds, 5 by default,
// so a conversation's think time or the pause between two runs would
// otherwise meet connections the server is closing. Ten minutes outlasts
// the client's own idle timeout and any think time a suite gives.
const (
	KeepAliveEnv     = "VLLM_HTTP_TIMEOUT_KEEP_ALIVE"
	KeepAliveSeconds = "600"
)

func defaultSettings() *settings {
	hf, vllm, err := CacheVolumes(os.Getenv(CacheNamespaceEnv))
	return &settings{
		env:            map[string]string{DevModeEnv: "1", KeepAliveEnv: KeepAliveSeconds},
		gpuCheck:       true,
		volumes:        map[string]string{HFCachePath: hf, VLLMCachePath: vllm},
		cacheErr:       err,
		startupTimeout: DefaultStartupTimeout,
		labels:         map[string]string{},
	}
}

// CacheNamespaceEnv names the environment variable that keeps a workflow's
// default cache volumes apart from other workflows' (the action's
// cache-namespace input sets it): with LLMGATE_CACHE_NAMESPACE=pr, server
// containers mount llmgate-hf-cache-pr and llmgate-vllm-cache-pr, so pull
// requests cannot poison the weights and compiled graphs that main's
// baseline runs load.
const CacheNamespaceEnv = "LLMGATE_CACHE_NAMESPACE"

// cacheNamespace is what a namespace may be: a Docker volume name's tail.
var cacheNamespace = regexp.MustCompile(`^[a-z0-9][a-z0-9_.-]{0,31}$`)

// CacheVolumes are the default cache volumes for namespace ns ("" is the
// shared llmgate-hf-cache and llmgate-vllm-cache).
func CacheVolumes(ns string) (hf, vllm string, err error) {
	switch {
	case ns == "":
		return HFCacheVolume, VLLMCacheVolume, nil
	case !cacheNamespace.MatchString(ns):
		return HFCacheVolume, VLLMCacheVolume, fmt.Errorf("%s=%q: a namespace is 1 to 32 lower-case letters, digits, '_', '.' or '-', starting with a letter or digit", CacheNamespaceEnv, ns)
	}
	return HFCacheVolume + "-" + ns, VLLMCacheVolume + "-" + ns, nil
}

// ContainerOption configures a container started by Run. Options apply in
// order, after the defaults, so a later option wins.
type ContainerOption func(*settings) error

// WithModel sets the model to serve. It is passed as the first argument after
// the image's entrypoint, as the current vllm/vllm-openai image (entrypoint
// `vllm serve`) expects; see WithModelFlag for older images.
func WithModel(model string) ContainerOption {
	return func(s *settings) error {
		s.model = model
		return nil
	}
}

// WithModelFlag passes the model as `--model <model>` instead of positionally,
// for older images whose entrypoint is the OpenAI api_server module.
func WithModelFlag() ContainerOption {
	return func(s *settings) error {
		s.modelFlag = true
		return nil
	}
}

// WithArgs appends server arguments (the target's args, then a run's server_args).
func WithArgs(args ...string) ContainerOption {
	return func(s *settings) error {
		s.args = append(s.args, args...)
		return nil
	}
}

// WithEnv adds environment variables to the container (HF_TOKEN, VLLM_*...).
func WithEnv(env map[string]string) ContainerOption {
	return func(s *settings) error {
		maps.Copy(s.env, env)
		return nil
	}
}

// WithGPUs requests GPUs like `docker run --gpus`: "all", a count such as "2",
// device ids such as "0,1" or "GPU-<uuid>", or "device=0" for a single device.
// "" requests none. When Docker cannot give the container GPUs, Run fails
// with ErrNoGPURuntime and a hint.
func WithGPUs(gpus string) ContainerOption {
	return func(s *settings) error {
		g, err := parseGPUs(gpus)
		if err != nil {
			return err
		}
		s.gpus = g
		return nil
	}
}

// WithoutGPURuntimeCheck keeps Docker's own error, as is, when it cannot
// give the container the GPUs requested, instead of ErrNoGPURuntime with
// advice on installing the NVIDIA Container Toolkit.
func WithoutGPURuntimeCheck() ContainerOption {
	return func(s *settings) error {
		s.gpuCheck = false
		return nil
	}
}

// WithIPC sets the IPC mode, e.g. "host" (vLLM's tensor parallel workers
// share memory through it). A container with GPUs and neither an IPC mode
// nor a shm size gets "host".
func WithIPC(mode string) ContainerOption {
	return func(s *settings) error {
		s.ipc = mode
		return nil
	}
}

// WithShmSize sets /dev/shm's size in bytes; 0 keeps Docker's default (64 MiB).
func WithShmSize(bytes int64) ContainerOption {
	return func(s *settings) error {
		if bytes < 0 {
			return fmt.Errorf("shm size must not be negative, got %d", bytes)
		}
		s.shmSize = bytes
		return nil
	}
}

// WithVolumes mounts sources (a named volume, or a host path starting with
// "/", "./" or "../") at container paths, given as source -> container path.
// Entries replace the defaults that mount at the same container path (named
// volumes llmgate-hf-cache at /root/.cache/huggingface and llmgate-vllm-cache
// at /root/.cache/vllm); an empty source removes the mount at that path.
func WithVolumes(volumes map[string]string) ContainerOption {
	return func(s *settings) error {
		for src, dst := range volumes {
			if dst == "" {
				return fmt.Errorf("volume %q: empty container path", src)
			}
			s.volumes[dst] = src
		}
		return nil
	}
}

// WithUnsafeHostMounts lets WithVolumes mount host paths that hand the
// container the host: the Docker socket or a directory that holds it, /,
// /proc, /sys, /dev (runspec.HostMountRisk). Without it Run refuses them.
func WithUnsafeHostMounts() ContainerOption {
	return func(s *settings) error {
		s.unsafeHostMounts = true
		return nil
	}
}

// WithoutVolumes drops every mount, the default cache volumes included.
func WithoutVolumes() ContainerOption {
	return func(s *settings) error {
		clear(s.volumes)
		return nil
	}
}

// WithStartupTimeout bounds the wait for GET /health to answer 200. A
// container that exits fails at once, whatever the timeout.
func WithStartupTimeout(d time.Duration) ContainerOption {
	return func(s *settings) error {
		if d <= 0 {
			return fmt.Errorf("startup timeout must be positive, got %s", d)
		}
		s.startupTimeout = d
		return nil
	}
}

// WithLogFile writes the container's full output (stdout and stderr) to path
// as it runs; the file is complete once Stop returns.
func WithLogFile(path string) ContainerOption {
	return func(s *settings) error {
		s.logFile = path
		return nil
	}
}

// WithAPIKey starts the server with `--api-key key`; requests then need
// `Authorization: Bearer key`. /health stays open, as in vLLM.
func WithAPIKey(key string) ContainerOption {
	return func(s *settings) error {
		s.apiKey = key
		return nil
	}
}

// WithSession labels the container org.llmgate.session=id so Cleanup(ctx, id)
// can remove it if the process dies before Stop.
func WithSession(id string) ContainerOption {
	return func(s *settings) error {
		if id == "" {
			return errors.New("empty session id")
		}
		s.session = id
		return nil
	}
}

// WithLabels adds container labels.
func WithLabels(labels map[string]string) ContainerOption {
	return func(s *settings) error {
		maps.Copy(s.labels, labels)
		return nil
	}
}

// WithLogger sets where testcontainers writes its progress lines; nil silences them.
func WithLogger(l tclog.Logger) ContainerOption {
	return func(s *settings) error {
		if l == nil {
			l = tclog.NewNoopLogger()
		}
		s.logger = l
		return nil
	}
}

// WithNotice sets where Run says what the caller should know beside the
// start's outcome, such as going on without testcontainers' reaper because
// its image cannot be had; nil drops it.
func WithNotice(notice func(string)) ContainerOption {
	return func(s *settings) error {
		s.notice = notice
		return nil
	}
}

// WithCustomizers passes testcontainers customizers through, applied after
// everything else, for what no option here covers.
func WithCustomizers(c ...tc.ContainerCustomizer) ContainerOption {
	return func(s *settings) error {
		s.customizers = append(s.customizers, c...)
		return nil
	}
}
