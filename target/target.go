package target

import (
	"context"
	"time"
)

// Kinds of target, as named by the suite's block types.
const (
	KindServer    = "server"
	KindEndpoint  = "endpoint"
	KindSimulator = "simulator"
)

// Spec is a fully resolved target block plus the server args of one group of runs.
type Spec struct {
	// Kind is one of the Kind constants; Name is the block label.
	Kind, Name string

	// Image is the container image (server).
	Image string
	// Model is the model to serve (server, simulator) or request (endpoint).
	Model string
	// Args are the block's args followed by the run's server_args (server, simulator).
	Args []string
	// Env is the container's environment (server).
	Env map[string]string
	// GPUs is "", "all", a count such as "2", or device ids such as "0,1" or
	// "device=0" (server).
	GPUs string
	// IPC is the IPC mode, e.g. "host" (server).
	IPC string
	// ShmSize is /dev/shm's size in bytes; 0 keeps Docker's default (server).
	ShmSize int64
	// Volumes maps host paths or named volumes to container paths (server).
	// Entries replace the default cache volumes mounted at the same container
	// path (see WithVolumes); nil keeps the defaults.
	Volumes map[string]string
	// ModelFlag passes the model as --model for older images instead of positionally (server).
	ModelFlag bool
	// StartupTimeout bounds the wait for GET /health (server).
	StartupTimeout time.Duration
	// LogPath is where the container's full log is written, if set (server).
	LogPath string

	// URL is the running server's base URL (endpoint).
	URL string
	// APIKey is sent as a bearer token (endpoint, or --api-key for the others).
	APIKey string

	// Profile is the simulator's performance profile (simulator).
	Profile string
}

// Metadata is what a started target knows about itself.
type Metadata struct {
	// Image is the container image as configured ("" for other kinds).
	Image string
	// ImageDigest is the image's repo digest ("sha256:..."), or its id when
	// it has none (built locally).
	ImageDigest string
	// VLLMVersion is what GET /version answered ("" when it did not).
	VLLMVersion string
	// GPU names the GPUs, e.g. "NVIDIA H100 80GB HBM3" or "2x ...".
	GPU string
	// Model is the served model name requests must use.
	Model string
}

// Instance is a started server under test.
type Instance interface {
	// BaseURL is the server's root, e.g. "http://127.0.0.1:49153".
	BaseURL() string
	// Model is the served model name to put in requests.
	Model() string
	// Metadata describes the server for the results file.
	Metadata() Metadata
	// Stop brings the server down and releases everything it held. It is safe to call twice.
	Stop(ctx context.Context) error
}

// Starter brings up an Instance for a Spec. The runner calls it once per
// group of runs that share a server config.
type Starter interface {
	Start(ctx context.Context, spec Spec) (Instance, error)
}
