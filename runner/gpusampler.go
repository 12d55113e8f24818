package runner

import (
	"context"
	"sync"
	"time"

	"github.com/llmgate/llmgate/backend"
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
	read     func(context.Context) ([]results.GPUReading, error)
	source   results.GPUSource
	interval time.Duration
	now      func() time.Time

	mu     sync.Mutex
	gen    int // bumped by Restart: a read begun before it is dropped
	t0     time.Time
	series results.GPUSeries

	kick chan struct{} // Restart asks for a reading at once
	quit chan struct{} // Stop: no reading after the one in flight
	done chan struct{}
	ctx  context.Context // the run's: ends every reading when interrupted
}

// startGPUSampler starts sampling inst's GPUs; nil when inst has none to read.
func startGPUSampler(ctx context.Context, inst backend.Instance, interval time.Duration, now func() time.Time) *gpuSampler {
	g, ok := inst.(backend.GPUReader)
	if !ok || !g.SamplesGPUs() {
		return nil
	}
	s := &gpuSampler{read: g.ReadGPUs, source: g.GPUSource(), interval: interval, now: now, t0: now(),
		kick: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{}), ctx: ctx}
	go s.loop(ctx)
	return s
}

func (s *gpuSampler) loop(ctx context.Context) {
	defer close(s.done)
	tick := time.NewTicker(s.interval)
	defer tick.Stop()
	for {
		s.sample(ctx)
		select {
		case <-ctx.Done():
			return
		case <-s.quit:
			return
		case <-tick.C:
		case <-s.kick:
			tick.Reset(s.interval)
		}
	}
}

// sample reads the GPUs once and records the reading, or counts it dropped.
func (s *gpuSampler) sample(ctx context.Context) {
	s.mu.Lock()
	gen := s.gen
	s.mu.Unlock()
	rs, err := s.read(ctx)
	at := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case ctx.Err() != nil || gen != s.gen:
		// Interrupted, or begun before the measured phase.
	case err != nil:
		s.series.Dropped++
		s.series.Error = gpuError(err)
	case len(s.series.Samples) >= results.MaxGPUSamples:
		s.series.Dropped++
	default:
		s.series.Samples = append(s.series.Samples, results.GPUSample{T: at.Sub(s.t0).Seconds(), GPUs: rs})
	}
}

// Restart forgets what was read so far: the measured phase starts now.
func (s *gpuSampler) Restart() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gen++
	s.t0 = s.now()
	s.series = results.GPUSeries{}
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// Stop ends the sampling and returns the series and its summary; nil, nil
// when nothing could be read. A reading in flight is waited for (the reader
// bounds it), and a measured phase that got none (shorter than one docker
// exec) gets one as it ends.
func (s *gpuSampler) Stop() (*results.GPUSeries, *results.GPUMetrics) {
	if s == nil {
		return nil, nil
	}
	close(s.quit)
	<-s.done
	s.mu.Lock()
	none := len(s.series.Samples) == 0
	s.mu.Unlock()
	if none {
		s.sample(s.ctx)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.series.Samples) == 0 && s.series.Dropped == 0 {
		return nil, nil
	}
	series := s.series
	series.Source = s.source
	return &series, results.SummarizeGPU(&series)
}

// maxGPUError is the most bytes of a failed read's reason the series keeps.
const maxGPUError = 300

// gpuError is a failed read's reason made safe to print (it may quote the
// exporter's or nvidia-smi's output) and cut to maxGPUError bytes and an
// ellipsis.
func gpuError(err error) string { return untrusted.Short(err.Error(), maxGPUError) }
