package load

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/llmgate/llmgate/internal/boundedget"
	"github.com/llmgate/llmgate/internal/telemetry"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/untrusted"
)

// Scrape bounds. vLLM's /metrics is some hundreds of KB (its histograms
// dominate); a page beyond MaxScrapeBytes or slower than ScrapeTimeout is
// dropped, so a broken or hostile endpoint costs the client a bounded
// amount of memory and CPU and cannot distort the latencies it measures.
const (
	// DefaultScrapeInterval is how often /metrics is scraped during a run:
	// often enough that a run of a few seconds has several samples.
	DefaultScrapeInterval = 250 * time.Millisecond
	// MaxScrapeBytes bounds one scrape's body.
	MaxScrapeBytes = 4 << 20
	// ScrapeTimeout bounds one scrape, connection to last byte.
	ScrapeTimeout = 2 * time.Second
)

// Scraper samples a server's Prometheus /metrics before, during and after a
// run. A server without /metrics (404, not Prometheus text, unreachable) is
// not an error: Stop then returns no metrics, and counts the failed scrapes;
// after a 404 it scrapes no more.
type Scraper struct {
	// snapshotSampler is the life cycle: the scrape every interval, the
	// Restart that drops a scrape begun before it, the failures counted.
	*snapshotSampler

	url      string
	apiKey   string
	timeout  time.Duration
	maxBytes int64
	hc       *http.Client
	bufs     sync.Pool // *bytes.Buffer: the periodic scrape's and Restart's may overlap
}

type snapshotSampler = Sampler[telemetry.ServerSnapshot]

// NewScraper returns a scraper of baseURL + "/metrics" every interval
// (DefaultScrapeInterval when interval <= 0), sending apiKey as a bearer
// token when set.
func NewScraper(baseURL, apiKey string, interval time.Duration) *Scraper {
	if interval <= 0 {
		interval = DefaultScrapeInterval
	}
	s := &Scraper{
		url:      trimSlash(baseURL) + "/metrics",
		apiKey:   apiKey,
		timeout:  ScrapeTimeout,
		maxBytes: MaxScrapeBytes,
		hc:       &http.Client{},
		bufs:     sync.Pool{New: func() any { return new(bytes.Buffer) }},
	}
	s.snapshotSampler = NewSampler(s.fetch, interval, 0, time.Now)
	s.compact = dropMiddleSplit
	return s
}

// Start takes the "before" scrape, then scrapes every interval until Stop
// or until ctx ends. A periodic scrape is never taken while another runs:
// a slow one delays the next.
func (s *Scraper) Start(ctx context.Context) { s.snapshotSampler.Start(ctx, true) }

// Stop ends the periodic scrapes, waits for Restart's, takes the "after"
// scrape and returns the run's server metrics (nil when the server exposed
// none) and the time series of its scrapes, in the order they began.
func (s *Scraper) Stop() (*results.ServerMetrics, *results.ServerSeries) {
	r := s.snapshotSampler.Stop(context.Background(), FinalAlways)
	series := &results.ServerSeries{Failed: r.Failed,
		TMS: []int64{}, KVCacheUsage: []float64{}, Running: []float64{}, Waiting: []float64{}, Preemptions: []float64{}}
	if r.Err != nil {
		// kept in the results file: it may quote the page (a parse
		// error), so made safe and short
		series.Error = untrusted.Short(r.Err.Error(), maxScrapeError)
	}
	snaps := make([]telemetry.ServerSnapshot, len(r.Samples))
	for i, sa := range r.Samples {
		snaps[i] = sa.snap
		if sa.snap.Refused != "" { // the last scrape's metrics left out
			series.Refused = untrusted.Short(sa.snap.Refused, maxScrapeError)
		}
		series.TMS = append(series.TMS, sa.at.Sub(r.Origin).Milliseconds())
		series.KVCacheUsage = append(series.KVCacheUsage, sa.snap.KVCacheUsage)
		series.Running = append(series.Running, sa.snap.RequestsRunning)
		series.Waiting = append(series.Waiting, sa.snap.RequestsWaiting)
		series.Preemptions = append(series.Preemptions, sa.snap.Preemptions)
	}
	return telemetry.ServerMetricsFrom(snaps), series
}

// Restart forgets the scrapes so far (and their failures), so the run's
// server metrics cover only what follows, and takes a fresh "before"
// scrape without waiting for it: the runner calls it when the warmup is
// over (Config.OnMeasureStart), on the goroutine that paces the sends,
// which a slow /metrics must not hold up. The scrape records when it
// began; a scrape in flight from before the Restart is dropped when it
// ends. Stop waits for it.
func (s *Scraper) Restart(ctx context.Context) { s.snapshotSampler.Restart(ctx) }

// maxScrapeError bounds the failure reason a run's server series keeps.
const maxScrapeError = 300

// scrape takes one scrape and records it, unless a Restart came while it
// ran (it is then of the warmup).
func (s *Scraper) scrape(ctx context.Context) { s.take(ctx) }

// dropMiddleSplit forgets the latency histograms of the scrape before the
// latest unless it is the first: the split is read from the first scrape
// and the last, and a long run scraped every 250 ms would otherwise keep
// some hundred numbers a scrape for nothing.
func dropMiddleSplit(snaps []Sample[telemetry.ServerSnapshot]) {
	if n := len(snaps); n > 2 {
		snaps[n-2].snap.Split = nil
	}
}

// fetch scrapes /metrics once, within the scraper's time and size bounds;
// after a 404 or a page over the bound no scrape follows (lastRead).
func (s *Scraper) fetch(ctx context.Context) (snap telemetry.ServerSnapshot, err error) {
	buf := s.bufs.Get().(*bytes.Buffer)
	defer s.bufs.Put(buf)
	code, err := boundedget.Get(ctx, s.hc, s.url, boundedget.Bearer(s.apiKey), s.timeout, s.maxBytes, buf)
	switch {
	case errors.Is(err, boundedget.ErrTooLarge):
		return telemetry.ServerSnapshot{}, lastRead(fmt.Errorf("GET /metrics: the page is larger than %d bytes: not read, and not scraped again this run", s.maxBytes))
	case err != nil:
		return telemetry.ServerSnapshot{}, fmt.Errorf("GET /metrics: %w", err)
	case code == http.StatusNotFound:
		return telemetry.ServerSnapshot{}, lastRead(fmt.Errorf("GET /metrics: HTTP 404: the server has no /metrics; not scraped again this run"))
	case code != http.StatusOK:
		return telemetry.ServerSnapshot{}, fmt.Errorf("GET /metrics: HTTP %d", code)
	}
	if snap, err = telemetry.ParseServerMetrics(buf); err != nil {
		return telemetry.ServerSnapshot{}, err
	}
	if !snap.Any() && snap.Refused != "" {
		return telemetry.ServerSnapshot{}, fmt.Errorf("GET /metrics: %s", snap.Refused)
	}
	if !snap.Any() {
		return telemetry.ServerSnapshot{}, fmt.Errorf("GET /metrics: no vLLM, SGLang or llama.cpp metric on the page")
	}
	return snap, nil
}
