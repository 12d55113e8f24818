package runner

import (
	"context"
	"time"

	"github.com/llmgate/llmgate/internal/backend"
	"github.com/llmgate/llmgate/internal/load"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/untrusted"
)

// DefaultGPUInterval is how often a server's GPUs are read during a run.
const DefaultGPUInterval = time.Second

// gpuSampler reads a server's GPUs every interval while a run drives it.
// Restart drops what was read before the measured phase; Stop ends the
// sampling and returns the series. Each read is bounded by the reader
// (backend.Container.ReadGPUs: a few seconds, a few KiB), and the series by
// results.MaxGPUSamples.
type gpuSampler struct {
	sampler *load.Sampler[[]results.GPUReading]
	source  results.GPUSource
	ctx     context.Context // the run's: ends every reading when interrupted
}

// startGPUSampler starts sampling inst's GPUs; nil when inst has none to read.
// Its first reading comes an interval after the start: the one Restart
// takes as the measured phase begins is the first that counts.
func startGPUSampler(ctx context.Context, inst backend.Instance, interval time.Duration, now func() time.Time) *gpuSampler {
	g, ok := inst.(backend.GPUReader)
	if !ok || !g.SamplesGPUs() {
		return nil
	}
	s := &gpuSampler{sampler: load.NewSampler(g.ReadGPUs, interval, results.MaxGPUSamples, now), source: g.GPUSource(), ctx: ctx}
	s.sampler.Start(ctx, false)
	return s
}

// Restart forgets what was read so far: the measured phase starts now,
// with a reading taken at once.
func (s *gpuSampler) Restart() {
	if s == nil {
		return
	}
	s.sampler.Restart(s.ctx)
}

// Stop ends the sampling and returns the series and its summary; nil, nil
// when nothing could be read. Restart's reading is waited for (the reader
// bounds it), a periodic one in flight is cancelled, and a measured phase that got none (shorter than one docker
// exec) gets one as it ends. Failed reads and those past
// results.MaxGPUSamples are counted dropped.
func (s *gpuSampler) Stop() (*results.GPUSeries, *results.GPUMetrics) {
	if s == nil {
		return nil, nil
	}
	r := s.sampler.Stop(s.ctx, load.FinalIfNone)
	series := results.GPUSeries{Source: s.source, Dropped: r.Failed + r.Overflow}
	if r.Err != nil {
		series.Error = gpuError(r.Err)
	}
	if len(r.Samples) == 0 && series.Dropped == 0 {
		return nil, nil
	}
	for _, smp := range r.Samples {
		series.Samples = append(series.Samples, results.GPUSample{T: smp.At().Sub(r.Origin).Seconds(), GPUs: smp.Value()})
	}
	return &series, results.SummarizeGPU(&series)
}

// maxGPUError is the most bytes of a failed read's reason the series keeps.
const maxGPUError = 300

// gpuError is a failed read's reason made safe to print (it may quote the
// exporter's or nvidia-smi's output) and cut to maxGPUError bytes and an
// ellipsis.
func gpuError(err error) string { return untrusted.Short(err.Error(), maxGPUError) }
