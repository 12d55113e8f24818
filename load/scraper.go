package load

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"sync"
	"time"

	"github.com/llmgate/llmgate/internal/boundedget"
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

	mu     sync.Mutex
	origin time.Time // series times are from here: the measured phase's start
	// gen is bumped by Restart: a scrape begun before it is dropped, as it
	// is of the warmup.
	gen     int
	snaps   []scrapeAt
	failed  int
	lastErr string
	refused string // the last scrape's metrics left out (ServerSnapshot.Refused)
	// stopped is set once a page exceeded maxBytes, or the server answered
	// 404 (it has no /metrics): later scrapes would cost as much again for
	// nothing, so there are none for the rest of the run.
	stopped bool

	bufs     sync.Pool      // *bytes.Buffer: the periodic scrape's and Restart's may overlap
	restarts sync.WaitGroup // Restart's scrapes in flight
	cancel   context.CancelFunc
	done     chan struct{}
}

// scrapeAt is one scrape's snapshot and when the scrape began.
type scrapeAt struct {
	at   time.Time
	snap results.ServerSnapshot
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
		bufs:     sync.Pool{New: func() any { return new(bytes.Buffer) }},
	}
}

// Start takes the "before" scrape, then scrapes every interval until Stop
// or until ctx ends. A periodic scrape is never taken while another runs:
// a slow one delays the next.
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

// Stop ends the periodic scrapes, waits for Restart's, takes the "after"
// scrape and returns the run's server metrics (nil when the server exposed
// none) and the time series of its scrapes, in the order they began.
func (s *Scraper) Stop() (*results.ServerMetrics, *results.ServerSeries) {
	if s.cancel != nil {
		s.cancel()
		<-s.done
	}
	s.restarts.Wait()
	s.scrape(context.Background())
	s.mu.Lock()
	defer s.mu.Unlock()
	// A Restart's scrape and a periodic one may overlap and end in either order.
	sort.SliceStable(s.snaps, func(i, j int) bool { return s.snaps[i].at.Before(s.snaps[j].at) })
	series := &results.ServerSeries{Failed: s.failed, Error: s.lastErr, Refused: s.refused,
		TMS: []int64{}, KVCacheUsage: []float64{}, Running: []float64{}, Waiting: []float64{}, Preemptions: []float64{}}
	snaps := make([]results.ServerSnapshot, len(s.snaps))
	for i, sa := range s.snaps {
		snaps[i] = sa.snap
		series.TMS = append(series.TMS, sa.at.Sub(s.origin).Milliseconds())
		series.KVCacheUsage = append(series.KVCacheUsage, sa.snap.KVCacheUsage)
		series.Running = append(series.Running, sa.snap.RequestsRunning)
		series.Waiting = append(series.Waiting, sa.snap.RequestsWaiting)
		series.Preemptions = append(series.Preemptions, sa.snap.Preemptions)
	}
	return results.ServerMetricsFrom(snaps), series
}

// Restart forgets the scrapes so far (and their failures), so the run's
// server metrics cover only what follows, and takes a fresh "before"
// scrape without waiting for it: the runner calls it when the warmup is
// over (Config.OnMeasureStart), on the goroutine that paces the sends,
// which a slow /metrics must not hold up. The scrape records when it
// began; a scrape in flight from before the Restart is dropped when it
// ends. Stop waits for it.
func (s *Scraper) Restart(ctx context.Context) {
	s.mu.Lock()
	s.gen++
	s.snaps = s.snaps[:0]
	if !s.stopped { // a scraper that stopped keeps saying why
		s.failed, s.lastErr = 0, ""
	}
	s.refused = ""
	s.origin = time.Now()
	s.mu.Unlock()
	s.restarts.Add(1)
	go func() {
		defer s.restarts.Done()
		s.scrape(ctx)
	}()
}

// maxScrapeError bounds the failure reason a run's server series keeps.
const maxScrapeError = 300

// scrape takes one scrape and records it, unless a Restart came while it
// ran (it is then of the warmup).
func (s *Scraper) scrape(ctx context.Context) {
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		return
	}
	gen := s.gen
	s.mu.Unlock()
	at := time.Now()
	snap, stop, err := s.fetch(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	if stop {
		s.stopped = true
	}
	switch {
	case gen != s.gen:
		// begun before the measured phase: not of it
	case err != nil:
		if ctx.Err() == nil {
			s.failed++
			// kept in the results file: it may quote the page (a
			// parse error), so made safe and short
			s.lastErr = untrusted.Short(err.Error(), maxScrapeError)
		}
	default:
		if snap.Refused != "" {
			s.refused = untrusted.Short(snap.Refused, maxScrapeError)
		}
		s.snaps = append(s.snaps, scrapeAt{at: at, snap: snap})
		s.dropMiddleSplit()
	}
}

// dropMiddleSplit forgets the latency histograms of the scrape before the
// latest unless it is the first: the split is read from the first scrape
// and the last, and a long run scraped every 250 ms would otherwise keep
// some hundred numbers a scrape for nothing.
func (s *Scraper) dropMiddleSplit() {
	if n := len(s.snaps); n > 2 {
		s.snaps[n-2].snap.Split = nil
	}
}

// fetch scrapes /metrics once, within the scraper's time and size bounds;
// stop says that no scrape should follow (a 404, a page over the bound).
func (s *Scraper) fetch(ctx context.Context) (snap results.ServerSnapshot, stop bool, err error) {
	buf := s.bufs.Get().(*bytes.Buffer)
	defer s.bufs.Put(buf)
	code, err := boundedget.Get(ctx, s.hc, s.url, boundedget.Bearer(s.apiKey), s.timeout, s.maxBytes, buf)
	switch {
	case errors.Is(err, boundedget.ErrTooLarge):
		return results.ServerSnapshot{}, true, fmt.Errorf("GET /metrics: the page is larger than %d bytes: not read, and not scraped again this run", s.maxBytes)
	case err != nil:
		return results.ServerSnapshot{}, false, fmt.Errorf("GET /metrics: %w", err)
	case code == http.StatusNotFound:
		return results.ServerSnapshot{}, true, fmt.Errorf("GET /metrics: HTTP 404: the server has no /metrics; not scraped again this run")
	case code != http.StatusOK:
		return results.ServerSnapshot{}, false, fmt.Errorf("GET /metrics: HTTP %d", code)
	}
	if snap, err = results.ParseServerMetrics(buf); err != nil {
		return results.ServerSnapshot{}, false, err
	}
	if !snap.Any() && snap.Refused != "" {
		return results.ServerSnapshot{}, false, fmt.Errorf("GET /metrics: %s", snap.Refused)
	}
	if !snap.Any() {
		return results.ServerSnapshot{}, false, fmt.Errorf("GET /metrics: no vLLM, SGLang or llama.cpp metric on the page")
	}
	return snap, false, nil
}
