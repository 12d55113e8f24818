package runspec

import "time"

// TargetKind is what a target is, as named by the suite's block types.
type TargetKind string

// Kinds of target.
const (
	KindServer    TargetKind = "server"    // a container llmgate starts
	KindEndpoint  TargetKind = "endpoint"  // a running server llmgate only sends requests to
	KindSimulator TargetKind = "simulator" // llmgate's own simulator, in process
)

// Valid reports whether k is one of the Kind constants.
func (k TargetKind) Valid() bool { return k == KindServer || k == KindEndpoint || k == KindSimulator }

// Target is a resolved server, endpoint or simulator block: what a target
// starter needs to bring up the server of a group of runs.
type Target struct {
	// Kind is one of the Kind constants; Name is the block label.
	Kind TargetKind
	Name string

	// Image is the container image (server).
	Image string
	// Model is the model to serve (server, simulator) or request (endpoint).
	Model string
	// Args are the server's flags (server, simulator); the plan of a group
	// adds the runs' server_args after the block's own.
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
	// path; nil keeps the defaults.
	Volumes map[string]string
	// UnsafeHostMounts lets Volumes mount host paths that hand the
	// container the host (HostMountRisk): the Docker socket, /, /proc,
	// /sys, /dev (server).
	UnsafeHostMounts bool
	// ModelFlag passes the model as --model for older images instead of positionally (server).
	ModelFlag bool
	// StartupTimeout bounds the wait for GET /health (server).
	StartupTimeout time.Duration

	// URL is the running server's base URL (endpoint).
	URL string
	// APIKey is sent as a bearer token (endpoint, or --api-key for the others).
	APIKey string

	// Profile is the simulator's performance profile (simulator).
	Profile string

	// DCGMExporter is the URL of a DCGM exporter's metrics page that reports
	// the target's GPUs (any kind); "" reads a server's GPUs with nvidia-smi.
	DCGMExporter string
}

// Ref returns "kind.name", the way scenarios refer to the target.
func (t *Target) Ref() string { return string(t.Kind) + "." + t.Name }
