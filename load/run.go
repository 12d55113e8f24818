package load

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llmgate/llmgate/results"
)

// ErrUnreachable is wrapped by Run's error when the target cannot be
// reached at all (connection refused, no route, DNS failure).
var ErrUnreachable = errors.New("target unreachable")

// DefaultTimeout bounds each request when Config.Timeout is 0.
const DefaultTimeout = 10 * time.Minute

// Result is what one run produced.
type Result struct {
	// Records holds every request, warmup included, in Seq order.
	Records []results.Record
	// Start and End bound the measured phase: Start is when it began (after
	// warmup), End when its last request ended.
	Start, End time.Time
	// MaxInFlight is the most measured requests seen in flight at once.
	MaxInFlight int
}

// Run drives one run described by cfg: it opens and warms the connection
// pool, sends cfg.Warmup warmup requests, then the measured requests paced
// by cfg (closed loop of Concurrency users when Rate is 0, else open loop at
// Rate with an optional Concurrency cap) until Requests were sent or
// Duration passed. Each finished request is also sent on sink when it is not
// nil; Run never closes sink. Failed requests are records, not errors: Run
// fails only for an unusable cfg, or when the target cannot be reached
// (wrapping ErrUnreachable). When ctx ends, Run stops sending, cancels what
// is in flight and returns what it has.
func Run(ctx context.Context, cfg Config, sink chan<- results.Record) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	wl, err := newWorkload(cfg)
	if err != nil {
		return nil, err
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	conns := poolSize(cfg)
	cl, err := newClient(cfg.BaseURL, cfg.APIKey, connLimit(cfg), timeout)
	if err != nil {
		return nil, err
	}
	defer cl.close()
	if err := cl.pool.fill(ctx, conns); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("load: canceled while connecting to %s: %w", cfg.BaseURL, ctx.Err())
		}
		return nil, fmt.Errorf("%w: %s: %v", ErrUnreachable, cfg.BaseURL, err)
	}

	r := &runner{cfg: cfg, wl: wl, cl: cl, origin: time.Now(), sink: sink, in: make(chan results.Record, 1024)}
	collected := make(chan struct{})
	go r.collect(collected)

	// warmup: the first requests, closed loop, not measured
	if cfg.Warmup > 0 {
		r.closedLoop(ctx, min(cfg.Warmup, conns), cfg.Warmup, 0, true)
		r.wg.Wait()
		// connections the warmup did not use may have gone stale meanwhile
		if err := cl.pool.refresh(ctx); err != nil && ctx.Err() == nil {
			r.finish()
			<-collected
			return &Result{Records: r.recs}, fmt.Errorf("%w: %s: after the warmup: %v", ErrUnreachable, cfg.BaseURL, err)
		}
	}
	if cfg.OnMeasureStart != nil {
		cfg.OnMeasureStart()
	}
	r.measureStart = time.Now()
	r.measuredBase = int(r.seq.Load())
	r.inflight.Store(0)
	r.maxInflight.Store(0)
	if cfg.Rate > 0 {
		r.openLoop(ctx)
	} else {
		r.closedLoop(ctx, cfg.Concurrency, cfg.Requests, cfg.Duration, false)
	}
	r.wg.Wait()
	end := time.Now()
	r.finish()
	<-collected

	sort.Slice(r.recs, func(i, j int) bool { return r.recs[i].Seq < r.recs[j].Seq })
	res := &Result{Records: r.recs, Start: r.measureStart, End: end, MaxInFlight: int(r.maxInflight.Load())}
	if allUnreachable(r.recs) {
		return res, fmt.Errorf("%w: %s: every request failed to connect: %s", ErrUnreachable, cfg.BaseURL, r.recs[0].Error)
	}
	return res, nil
}

// poolSize is how many connections to open before the clock starts.
func poolSize(cfg Config) int {
	switch {
	case cfg.Concurrency > 0:
		return cfg.Concurrency
	default: // open loop without a cap: about two seconds' worth
		return min(max(int(2*cfg.Rate)+1, 1), 512)
	}
}

// connLimit caps connections: the concurrency when there is one, else none.
func connLimit(cfg Config) int { return max(cfg.Concurrency, 0) }

// runner is the state of one Run.
type runner struct {
	cfg          Config
	wl           workload
	cl           *client
	origin       time.Time // offsets in records are from here
	measureStart time.Time
	measuredBase int // the Seq of the first measured request
	sink         chan<- results.Record
	in           chan results.Record
	recs         []results.Record

	seq         atomic.Int64
	inflight    atomic.Int64
	maxInflight atomic.Int64
	wg          sync.WaitGroup
}

// finish ends the record stream once every request is done.
func (r *runner) finish() { close(r.in) }

func (r *runner) collect(done chan<- struct{}) {
	defer close(done)
	for rec := range r.in {
		r.recs = append(r.recs, rec)
		if r.sink != nil {
			r.sink <- rec
		}
	}
}

// send makes request seq, planned at scheduled, and hands its record on.
func (r *runner) send(ctx context.Context, seq int, scheduled time.Time, warmup bool) {
	n := r.inflight.Add(1)
	for {
		m := r.maxInflight.Load()
		if n <= m || r.maxInflight.CompareAndSwap(m, n) {
			break
		}
	}
	rec := results.Record{Seq: seq, Warmup: warmup, Scheduled: scheduled.Sub(r.origin)}
	s := slot{seq: seq, warmup: warmup, index: seq}
	if !warmup {
		s.index = seq - r.measuredBase
	}
	req := r.wl.next(s)
	rec.Turn = req.turn
	r.cl.do(ctx, req, r.origin, &rec)
	r.inflight.Add(-1)
	r.in <- rec
}

// closedLoop runs users goroutines that each send a request as soon as
// their previous one ended, until count requests were started (0: no limit)
// or dur passed (0: no limit) or ctx ended.
func (r *runner) closedLoop(ctx context.Context, users, count int, dur time.Duration, warmup bool) {
	var started atomic.Int64
	start := time.Now()
	for range users {
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			for ctx.Err() == nil {
				if count > 0 && started.Add(1) > int64(count) {
					return
				}
				now := time.Now()
				if dur > 0 && now.Sub(start) >= dur {
					return
				}
				r.send(ctx, int(r.seq.Add(1)-1), now, warmup)
			}
		}()
	}
}

// openLoop sends requests when the pacer says, each in its own goroutine,
// waiting for a free slot when Concurrency caps requests in flight.
func (r *runner) openLoop(ctx context.Context) {
	pacer := NewPacer(r.cfg)
	sched, _ := pacer.(scheduler)
	var slots chan struct{}
	if r.cfg.Concurrency > 0 {
		slots = make(chan struct{}, r.cfg.Concurrency)
	}
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for hits := uint64(0); ; hits++ {
		if r.cfg.Requests > 0 && hits >= uint64(r.cfg.Requests) {
			return
		}
		elapsed := time.Since(r.measureStart)
		wait, stop := pacer.Pace(elapsed, hits)
		if stop {
			return
		}
		due := elapsed + wait
		if sched != nil {
			due, _ = sched.due(hits)
		}
		if r.cfg.Duration > 0 && due >= r.cfg.Duration {
			return
		}
		if wait > 0 {
			timer.Reset(wait)
			select {
			case <-ctx.Done():
				return
			case <-timer.C:
			}
		}
		if slots != nil {
			select {
			case <-ctx.Done():
				return
			case slots <- struct{}{}:
			}
		}
		seq := int(r.seq.Add(1) - 1)
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			r.send(ctx, seq, r.measureStart.Add(due), false)
			if slots != nil {
				<-slots
			}
		}()
	}
}

// allUnreachable reports whether there were records and every one failed
// before reaching the server.
func allUnreachable(recs []results.Record) bool {
	if len(recs) == 0 {
		return false
	}
	for i := range recs {
		if recs[i].ErrorKind != KindDisconnect || !isConnectError(recs[i].Error) {
			return false
		}
	}
	return true
}
