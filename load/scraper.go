package load

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

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
	url      string
	apiKey   string
	interval time.Duration
	timeout  time.Duration
	maxBytes int64
	hc       *http.Client

	mu      sync.Mutex
	origin  time.Time // series times are from here: the measured phase's start
	snaps   []results.ServerSnapshot
	at      []time.Time
	failed  int
	lastErr string
	// stopped is set once a page exceeded maxBytes, or the server answered
	// 404 (it has no /metrics): later scrapes would cost as much again for
	// nothing, so there are none for the rest of the run.
	stopped bool
	buf     bytes.Buffer
	cancel  context.CancelFunc
	done    chan struct{}
}

// NewScraper returns a scraper of baseURL + "/metrics" every interval
// (DefaultScrapeInterval when interval <= 0), sending apiKey as a bearer
// token when set.
func NewScraper(baseURL, apiKey string, interval time.Duration) *Scraper {
	if interval <= 0 {
		interval = DefaultScrapeInterval
	}
	return &Scraper{
		url:      trimSlash(baseURL) + "/metrics",
		apiKey:   apiKey,
		interval: interval,
		timeout:  ScrapeTimeout,
		maxBytes: MaxScrapeBytes,
		hc:       &http.Client{},
	}
}

// Start takes the "before" scrape, then scrapes every interval until Stop
// or until ctx ends. A scrape is never taken while another runs: a slow one
// delays the next.
func (s *Scraper) Start(ctx context.Context) {
	s.mu.Lock()
	s.origin = time.Now()
	s.mu.Unlock()
	s.scrape(ctx)
	ctx, cancel := context.WithCancel(ctx)
	s.cancel = cancel
	s.done = make(chan struct{})
	go func() {
		defer close(s.done)
		t := time.NewTicker(s.interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				s.scrape(ctx)
			}
		}
	}()
}

// Stop ends the periodic scrapes, takes the "after" scrape and returns the
// run's server metrics (nil when the server exposed none) and the time
// series of its scrapes.
func (s *Scraper) Stop() (*results.ServerMetrics, *results.ServerSeries) {
	if s.cancel != nil {
		s.cancel()
		<-s.done
	}
	s.scrape(context.Background())
	s.mu.Lock()
	defer s.mu.Unlock()
	series := &results.ServerSeries{Failed: s.failed, Error: s.lastErr,
		TMS: []int64{}, KVCacheUsage: []float64{}, Running: []float64{}, Waiting: []float64{}, Preemptions: []float64{}}
	for i, sn := range s.snaps {
		series.TMS = append(series.TMS, s.at[i].Sub(s.origin).Milliseconds())
		series.KVCacheUsage = append(series.KVCacheUsage, sn.KVCacheUsage)
		series.Running = append(series.Running, sn.RequestsRunning)
		series.Waiting = append(series.Waiting, sn.RequestsWaiting)
		series.Preemptions = append(series.Preemptions, sn.Preemptions)
	}
	return results.ServerMetricsFrom(s.snaps), series
}

// Restart takes a fresh "before" scrape and forgets the earlier ones (and
// their failures), so the run's server metrics cover only what follows: the
// runner calls it when the warmup is over (Config.OnMeasureStart).
func (s *Scraper) Restart(ctx context.Context) {
	s.mu.Lock()
	s.snaps, s.at = s.snaps[:0], s.at[:0]
	if !s.stopped { // a scraper that stopped keeps saying why
		s.failed, s.lastErr = 0, ""
	}
	s.origin = time.Now()
	s.mu.Unlock()
	s.scrape(ctx)
}

// maxScrapeError bounds the failure reason a run's server series keeps.
const maxScrapeError = 300

func (s *Scraper) scrape(ctx context.Context) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return
	}
	at := time.Now()
	snap, err := s.fetch(ctx)
	if err != nil {
		if ctx.Err() == nil {
			s.failed++
			// kept in the results file: it may quote the page (a
			// parse error), so made safe and short
			s.lastErr = untrusted.Short(err.Error(), maxScrapeError)
		}
		return
	}
	s.snaps = append(s.snaps, snap)
	s.at = append(s.at, at)
	s.dropMiddleSplit()
}

// dropMiddleSplit forgets the latency histograms of the scrape before the
// latest unless it is the first: the split is read from the first scrape
// and the last, and a long run scraped every 250 ms would otherwise keep
// some hundred numbers a scrape for nothing.
func (s *Scraper) dropMiddleSplit() {
	if n := len(s.snaps); n > 2 {
		s.snaps[n-2].Split = nil
	}
}

// fetch scrapes /metrics once, within the scraper's time and size bounds,
// into its reused buffer; the caller holds s.mu.
func (s *Scraper) fetch(ctx context.Context) (results.ServerSnapshot, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
	if err != nil {
		return results.ServerSnapshot{}, err
	}
	if s.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+s.apiKey)
	}
	resp, err := s.hc.Do(req)
	if err != nil {
		return results.ServerSnapshot{}, fmt.Errorf("GET /metrics: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		s.stopped = true
		return results.ServerSnapshot{}, fmt.Errorf("GET /metrics: HTTP 404: the server has no /metrics; not scraped again this run")
	}
	if resp.StatusCode != http.StatusOK {
		return results.ServerSnapshot{}, fmt.Errorf("GET /metrics: HTTP %d", resp.StatusCode)
	}
	s.buf.Reset()
	n, err := s.buf.ReadFrom(io.LimitReader(resp.Body, s.maxBytes+1))
	switch {
	case n > s.maxBytes:
		s.stopped = true
		return results.ServerSnapshot{}, fmt.Errorf("GET /metrics: the page is larger than %d bytes: not read, and not scraped again this run", s.maxBytes)
	case err != nil:
		return results.ServerSnapshot{}, fmt.Errorf("GET /metrics: reading the page: %w (bound %v)", err, s.timeout)
	}
	snap, err := results.ParseServerMetrics(&s.buf)
	if err != nil {
		return results.ServerSnapshot{}, err
	}
	if !snap.Any() {
		return results.ServerSnapshot{}, fmt.Errorf("GET /metrics: no vLLM, SGLang or llama.cpp metric on the page")
	}
	return snap, nil
}
