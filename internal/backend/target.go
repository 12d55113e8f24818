package backend

import (
	"context"

	"github.com/llmgate/llmgate/runspec"
)

// StartOptions is what one start of a target needs beside its runspec.Target:
// what the runner decides for this group of runs, not what the suite says.
type StartOptions struct {
	// LogPath is where the container's full log is written, if set (server).
	LogPath string
	// Notice receives what the start has to say beside its outcome, such as
	// going on without testcontainers' reaper (server); nil drops it.
	Notice func(string)
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

// Starter brings up an Instance for a target spec. The runner calls it once
// per group of runs that share a server config.
type Starter interface {
	Start(ctx context.Context, spec runspec.Target, opts StartOptions) (Instance, error)
}
