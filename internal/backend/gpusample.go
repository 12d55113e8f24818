package backend

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/client"

	"github.com/llmgate/llmgate/internal/telemetry"
	"github.com/llmgate/llmgate/results"
)

// gpuReadTimeout bounds one nvidia-smi call, from exec create to exit code.
const gpuReadTimeout = 5 * time.Second

// GPUReader is an instance whose GPUs can be read while it serves: a
// container started with GPUs (or WithGPUSampling).
type GPUReader interface {
	// SamplesGPUs says whether ReadGPUs is worth calling.
	SamplesGPUs() bool
	// ReadGPUs returns each GPU's utilisation, memory and power now.
	ReadGPUs(ctx context.Context) ([]results.GPUReading, error)
	// GPUSource names where the readings come from (results.GPUSource*).
	GPUSource() results.GPUSource
}

var _ GPUReader = (*Container)(nil)

// WithGPUSampling samples the container's GPUs during runs even when no
// GPUs were requested, for images whose nvidia-smi is a stand-in (tests).
// A container with GPUs is sampled without it. Device requests are not changed.
func WithGPUSampling() ContainerOption {
	return func(s *settings) error {
		s.sampleGPUs = true
		return nil
	}
}

// SamplesGPUs reports whether the container was started with GPUs or WithGPUSampling.
func (c *Container) SamplesGPUs() bool { return c != nil && c.ctr != nil && c.sampleGPUs }

// GPUSource is nvidia-smi: a container's GPUs are read inside it.
func (c *Container) GPUSource() results.GPUSource { return results.GPUSourceNvidiaSMI }

// ReadGPUs runs nvidia-smi in the container and parses its answer. The call
// is bounded in time (gpuReadTimeout) and in output (telemetry.MaxGPUOutput):
// the text comes from the image and is not trusted.
func (c *Container) ReadGPUs(ctx context.Context) ([]results.GPUReading, error) {
	if !c.SamplesGPUs() {
		return nil, errors.New("read GPUs: not sampling this container's GPUs")
	}
	ctx, cancel := context.WithTimeout(ctx, gpuReadTimeout)
	defer cancel()
	cmd := append([]string{"nvidia-smi"}, telemetry.GPUQueryArgs...)
	created, err := c.cli.ExecCreate(ctx, c.ctr.GetContainerID(), client.ExecCreateOptions{Cmd: cmd, AttachStdout: true})
	if err != nil {
		return nil, fmt.Errorf("read GPUs: exec nvidia-smi: %w", err)
	}
	att, err := c.cli.ExecAttach(ctx, created.ID, client.ExecAttachOptions{})
	if err != nil {
		return nil, fmt.Errorf("read GPUs: attach to nvidia-smi: %w", err)
	}
	// Closing the connection is what ends a read that ctx outlives.
	stop := context.AfterFunc(ctx, att.Close)
	defer stop()
	defer att.Close()
	// The multiplexed stream adds an 8-byte header per frame: twice the
	// output's bound leaves room for them, anything more is refused.
	raw, err := io.ReadAll(io.LimitReader(att.Reader, 2*telemetry.MaxGPUOutput+1))
	if ctx.Err() != nil {
		return nil, fmt.Errorf("read GPUs: nvidia-smi: %w", context.Cause(ctx))
	}
	if err != nil {
		return nil, fmt.Errorf("read GPUs: read nvidia-smi's output: %w", err)
	}
	if len(raw) > 2*telemetry.MaxGPUOutput {
		return nil, fmt.Errorf("read GPUs: nvidia-smi's output is over %d bytes", telemetry.MaxGPUOutput)
	}
	var out bytes.Buffer
	if _, err := stdcopy.StdCopy(&out, io.Discard, bytes.NewReader(raw)); err != nil {
		return nil, fmt.Errorf("read GPUs: nvidia-smi's output: %w", err)
	}
	// The daemon marks the exec stopped a moment after closing the stream:
	// ask again until it has (bounded by ctx).
	var ins client.ExecInspectResult
	for {
		if ins, err = c.cli.ExecInspect(ctx, created.ID, client.ExecInspectOptions{}); err != nil {
			return nil, fmt.Errorf("read GPUs: nvidia-smi's exit code: %w", err)
		}
		if !ins.Running {
			break
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("read GPUs: nvidia-smi did not exit: %w", context.Cause(ctx))
		case <-time.After(50 * time.Millisecond):
		}
	}
	if ins.ExitCode != 0 {
		return nil, fmt.Errorf("read GPUs: nvidia-smi exited with code %d", ins.ExitCode)
	}
	return telemetry.ParseGPUReadings(out.String())
}
