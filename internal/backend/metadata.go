package backend

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/llmgate/llmgate/internal/serverinfo"
	tcexec "github.com/testcontainers/testcontainers-go/exec"
)

// metadataTimeout bounds each best-effort metadata probe.
const metadataTimeout = 10 * time.Second

// displayText makes a string the server reports about itself (its version,
// its GPUs) safe to print and publish, and short.
func displayText(s string) string { return serverinfo.Shown(s) }

// collectMetadata asks the running container and the daemon what it is.
// Every probe is best effort: a field stays empty when its source is
// unavailable. The model is the one checkModel found.
func (c *Container) collectMetadata(ctx context.Context, model string) Metadata {
	m := Metadata{Image: c.image, Model: model}
	m.VLLMVersion = serverinfo.Version(ctx, nil, c.baseURL)
	m.ImageDigest = c.imageDigest(ctx)
	m.GPU = c.gpuName(ctx)
	return m
}

// imageDigest returns the repo digest ("sha256:...") of the container's
// image, or its image id when it has no digest (built locally).
func (c *Container) imageDigest(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(ctx, metadataTimeout)
	defer cancel()
	ins, err := c.ctr.Inspect(ctx)
	if err != nil {
		return ""
	}
	img, err := c.cli.ImageInspect(ctx, ins.Image)
	if err != nil {
		return ins.Image
	}
	return digestOf(img.RepoDigests, img.ID)
}

// digestOf picks the digest from repo digests ("repo@sha256:...") or falls back to the id.
func digestOf(repoDigests []string, id string) string {
	for _, rd := range repoDigests {
		if _, d, ok := strings.Cut(rd, "@"); ok {
			return d
		}
	}
	return id
}

// gpuName runs nvidia-smi in the container; "" when it is not there (the simulator image).
func (c *Container) gpuName(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(ctx, metadataTimeout)
	defer cancel()
	code, out, err := c.ctr.Exec(ctx, []string{"nvidia-smi", "--query-gpu=name", "--format=csv,noheader"}, tcexec.Multiplexed())
	if err != nil || code != 0 {
		return ""
	}
	b, err := io.ReadAll(out)
	if err != nil {
		return ""
	}
	return displayText(summarizeGPUs(string(b)))
}

// summarizeGPUs turns nvidia-smi's one-name-per-line output into "NAME" or
// "4x NAME" (or the names joined by ", " when they differ).
func summarizeGPUs(out string) string {
	var names []string
	for l := range strings.Lines(out) {
		if l = strings.TrimSpace(l); l != "" {
			names = append(names, l)
		}
	}
	switch {
	case len(names) == 0:
		return ""
	case len(names) == 1:
		return names[0]
	}
	for _, n := range names[1:] {
		if n != names[0] {
			return strings.Join(names, ", ")
		}
	}
	return fmt.Sprintf("%dx %s", len(names), names[0])
}
