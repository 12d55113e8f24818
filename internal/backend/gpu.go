package backend

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"
)

// gpuRequest is a parsed `gpus` value: a count (-1 = all) or device ids.
type gpuRequest struct {
	count int
	ids   []string
}

// parseGPUs reads "all", a count ("2"), ids ("0,1", "GPU-<uuid>"), "device=0[,1]" or "count=2".
func parseGPUs(v string) (*gpuRequest, error) {
	v = strings.TrimSpace(v)
	switch {
	case v == "":
		return nil, nil
	case v == "all":
		return &gpuRequest{count: -1}, nil
	case strings.HasPrefix(v, "device="):
		return parseGPUIDs(v, strings.TrimPrefix(v, "device="))
	case strings.HasPrefix(v, "count="):
		return parseGPUCount(v, strings.TrimPrefix(v, "count="))
	case strings.Contains(v, ","), strings.HasPrefix(v, "GPU-"), strings.HasPrefix(v, "MIG-"):
		return parseGPUIDs(v, v)
	default:
		return parseGPUCount(v, v)
	}
}

func parseGPUCount(orig, v string) (*gpuRequest, error) {
	n, err := strconv.Atoi(v)
	if err != nil {
		return nil, fmt.Errorf(`gpus = %q: want "all", a count such as "2", or device ids such as "0,1"`, orig)
	}
	if n < 1 {
		return nil, fmt.Errorf(`gpus = %q: a count must be at least 1 (to select only device 0 write "device=0"; for no GPU leave gpus unset)`, orig)
	}
	return &gpuRequest{count: n}, nil
}

func parseGPUIDs(orig, v string) (*gpuRequest, error) {
	var ids []string
	for id := range strings.SplitSeq(v, ",") {
		id = strings.TrimSpace(id)
		if id == "" {
			return nil, fmt.Errorf("gpus = %q: empty device id", orig)
		}
		ids = append(ids, id)
	}
	return &gpuRequest{ids: ids}, nil
}

// deviceRequest is what `docker run --gpus` sends: the nvidia driver with the gpu capability.
func (g *gpuRequest) deviceRequest() container.DeviceRequest {
	r := container.DeviceRequest{Driver: "nvidia", Capabilities: [][]string{{"gpu"}}}
	if len(g.ids) > 0 {
		r.DeviceIDs = slices.Clone(g.ids)
	} else {
		r.Count = g.count
	}
	return r
}

// gpuRuntimeHint is the advice given when Docker cannot give a container GPUs.
const gpuRuntimeHint = `GPUs were requested, and Docker has no NVIDIA device driver to give them to the container.
Install the NVIDIA Container Toolkit on the host, register it with Docker and restart the daemon:
    sudo nvidia-ctk runtime configure --runtime=docker
    sudo systemctl restart docker
Check with: docker run --rm --gpus all ubuntu nvidia-smi
(To run without a GPU, use a simulator target or leave gpus unset.)`

// noGPUDriver reports whether err is Docker refusing a GPU device request
// for want of a driver: "could not select device driver "nvidia" with
// capabilities: [[gpu]]", what `docker run --gpus` says on a host without the
// NVIDIA Container Toolkit. The daemon's runtime list cannot tell this in
// advance: --gpus works through the toolkit's hook without a registered
// nvidia runtime, so only Docker's own answer is trusted. It is matched by
// its words because the daemon sends no typed error for it (the Docker
// client hands back the daemon's message as text): the one error text
// llmgate decides by that is not its own.
func noGPUDriver(err error) bool {
	return err != nil && strings.Contains(err.Error(), "could not select device driver")
}

// gpuUnavailable explains Docker's refusal of the GPUs (cause) with the
// runtimes the daemon has and how to install what is missing.
func gpuUnavailable(ctx context.Context, cli infoClient, cause error) error {
	have := ""
	if res, err := cli.Info(ctx, client.InfoOptions{}); err == nil {
		have = " (its runtimes: " + strings.Join(slices.Sorted(maps.Keys(res.Info.Runtimes)), ", ") + ")"
	}
	return unavailable(fmt.Errorf("%w%s: %w\n%s", ErrNoGPURuntime, have, cause, gpuRuntimeHint))
}

// infoClient is the part of the Docker client the GPU advice needs.
type infoClient interface {
	Info(ctx context.Context, options client.InfoOptions) (client.SystemInfoResult, error)
}

// DeviceIDs returns the device ids a `gpus` value names ("device=0",
// "0,1", "GPU-<uuid>"), or none for "", "all" and counts, which name no
// particular device; the error is the value's parse error.
func DeviceIDs(gpus string) ([]string, error) {
	g, err := parseGPUs(gpus)
	if err != nil || g == nil {
		return nil, err
	}
	return slices.Clone(g.ids), nil
}
