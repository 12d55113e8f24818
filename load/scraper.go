package load

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/llmgate/llmgate/results"
)

// Scraper samples a server's Prometheus /metrics before, during and after a
// run. A server without /metrics (404, not Prometheus text, unreachable) is
// not an error: Stop then returns nil.
type Scraper struct {
	url      string
	apiKey   string
	interval time.Duration
	hc       *http.Client

	mu     sync.Mutex
	snaps  []results.ServerSnapshot
	cancel context.CancelFunc
	done   chan struct{}
}

// NewScraper returns a scraper of baseURL + "/metrics" every interval (1 s
// when interval <= 0), sending apiKey as a bearer token when set.
func NewScraper(baseURL, apiKey string, interval time.Duration) *Scraper {
	if interval <= 0 {
		interval = time.Second
	}
	return &Scraper{
		url:      trimSlash(baseURL) + "/metrics",
		apiKey:   apiKey,
		interval: interval,
		hc:       &http.Client{Timeout: 5 * time.Second},
	}
}

// Start takes the "before" scrape, then scrapes every interval until Stop
// or until ctx ends.
func (s *Scraper) Start(ctx context.Context) {
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
// run's server metrics, or nil when the server exposed none.
func (s *Scraper) Stop() *results.ServerMetrics {
	if s.cancel != nil {
		s.cancel()
		<-s.done
	}
	s.scrape(context.Background())
	s.mu.Lock()
	defer s.mu.Unlock()
	return results.ServerMetricsFrom(s.snaps)
}

// Snapshots returns the scrapes taken so far that held vLLM metrics.
func (s *Scraper) Snapshots() []results.ServerSnapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]results.ServerSnapshot(nil), s.snaps...)
}

// Restart takes a fresh "before" scrape and forgets the earlier ones, so
// the run's server metrics cover only what follows: the runner calls it when
// the warmup is over (Config.OnMeasureStart).
func (s *Scraper) Restart(ctx context.Context) {
	snap, ok := s.fetch(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.snaps = s.snaps[:0]
	if ok {
		s.snaps = append(s.snaps, snap)
	}
}

func (s *Scraper) scrape(ctx context.Context) {
	snap, ok := s.fetch(ctx)
	if !ok {
		return
	}
	s.mu.Lock()
	s.snaps = append(s.snaps, snap)
	s.mu.Unlock()
}

// fetch scrapes /metrics once; false when it held no vLLM metrics.
func (s *Scraper) fetch(ctx context.Context) (results.ServerSnapshot, bool) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
	if err != nil {
		return results.ServerSnapshot{}, false
	}
	if s.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+s.apiKey)
	}
	resp, err := s.hc.Do(req)
	if err != nil {
		return results.ServerSnapshot{}, false
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return results.ServerSnapshot{}, false
	}
	snap, err := results.ParseServerMetrics(resp.Body)
	if err != nil || !snap.Any() {
		return results.ServerSnapshot{}, false
	}
	return snap, true
}
