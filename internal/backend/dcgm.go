package backend

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/llmgate/llmgate/internal/boundedget"
	"github.com/llmgate/llmgate/internal/telemetry"
	"github.com/llmgate/llmgate/results"
)

// Bounds on one read of a DCGM exporter, whose page is untrusted. Its
// default counters come to some KB per GPU; a page over DCGMMaxBytes or
// slower than DCGMTimeout (connection to last byte) is a failed sample.
const (
	DCGMMaxBytes = 1 << 20
	DCGMTimeout  = 2 * time.Second
)

// DCGMExporter reads GPUs from an NVIDIA DCGM exporter's metrics page
// (dcgm-exporter, usually http://HOST:9400/metrics). It implements the
// reading half of GPUReader; WithDCGMExporter puts it on an Instance.
type DCGMExporter struct {
	url      string
	devices  []string
	hc       *http.Client
	timeout  time.Duration
	maxBytes int64

	mu  sync.Mutex // one read at a time: buf is reused
	buf bytes.Buffer
}

// NewDCGMExporter returns a reader of the exporter page at url; with
// devices set (device indices or UUIDs: the server's GPUs), of those GPUs
// only.
func NewDCGMExporter(url string, devices []string) *DCGMExporter {
	return &DCGMExporter{url: url, devices: slices.Clone(devices), hc: &http.Client{}, timeout: DCGMTimeout, maxBytes: DCGMMaxBytes}
}

// ReadGPUs fetches the page once, within the time and size bounds, and
// parses it (telemetry.ParseDCGM). Errors may quote a GPU label of the page
// (a parse error); the sampler makes them safe before keeping them.
func (d *DCGMExporter) ReadGPUs(ctx context.Context) ([]results.GPUReading, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	code, err := boundedget.Get(ctx, d.hc, d.url, nil, d.timeout, d.maxBytes, &d.buf)
	switch {
	case errors.Is(err, boundedget.ErrTooLarge):
		return nil, fmt.Errorf("DCGM exporter: the page is larger than %d bytes", d.maxBytes)
	case err != nil:
		return nil, fmt.Errorf("DCGM exporter: %w", err)
	case code != http.StatusOK:
		return nil, fmt.Errorf("DCGM exporter: HTTP %d", code)
	}
	rs, err := telemetry.ParseDCGM(&d.buf, d.devices)
	if err != nil {
		return nil, fmt.Errorf("DCGM exporter: %w", err)
	}
	return rs, nil
}

// WithDCGMExporter returns inst with its GPUs read from the DCGM exporter
// at url instead of its own way (nvidia-smi in a container): what a suite's
// dcgm_exporter asks for. The figures cover the GPUs the target's gpus
// setting names by id ("device=0,1", "GPU-<uuid>"), or every GPU the
// exporter lists when it names none. Everything else is inst's.
func WithDCGMExporter(inst Instance, url, gpus string) Instance {
	devices, _ := DeviceIDs(gpus) // the suite checked gpus; a bad value reads every GPU
	return &dcgmInstance{Instance: inst, dcgm: NewDCGMExporter(url, devices)}
}

type dcgmInstance struct {
	Instance
	dcgm *DCGMExporter
}

var _ GPUReader = (*dcgmInstance)(nil)

func (d *dcgmInstance) SamplesGPUs() bool { return true }

func (d *dcgmInstance) GPUSource() results.GPUSource { return results.GPUSourceDCGM }

func (d *dcgmInstance) ReadGPUs(ctx context.Context) ([]results.GPUReading, error) {
	return d.dcgm.ReadGPUs(ctx)
}
