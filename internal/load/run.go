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
	// Calibration says how prompt lengths were made to match the workload.
	Calibration results.Calibration
	// Dataset is what a dataset workload's entries showed against the
	// model's context; nil for other workloads.
	Dataset *results.DatasetFit
	// LateDials counts the connections dialled on demand, inside a
	// request's send (their set-up is in its schedule lag, not its TTFT),
	// because no connection opened ahead of time was fresh.
	LateDials int
}

// Run drives one run described by cfg: it opens and warms the connection
// pool, then runs one loop paced by cfg (closed loop of Concurrency users
// when Rate is 0, else open loop at Rate with an optional Concurrency cap)
// whose first requests are the warmup and whose later ones are measured,
// until Requests were measured or Duration passed since the first. The
// measured phase begins once cfg.Warmup requests were sent and, in a closed
// loop with a warmup, once every user's first request ended: the start-up
// wave is never measured, and warmup requests still in flight overlap the
// first measured ones as they would in steady state. Before the loop, text
// prompt lengths are calibrated against the server (see calibrate). Each
// finished request is also sent on sink when it is not nil; Run never closes sink. Failed requests are records, not errors: Run
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
	if len(cfg.Stages) > 0 {
		conns = stagesPoolSize(cfg)
	}
	if tw, ok := wl.(*traceWorkload); ok && cfg.Concurrency == 0 {
		conns = tw.poolSize()
	}
	headers := canonicalHeaders(cfg.Request.Headers)
	for _, h := range headers {
		if h.Name == "Authorization" && cfg.APIKey != "" {
			return nil, errors.New("load: the request block's Authorization header and an API key (api_key or --api-key) would both be sent; keep one")
		}
	}
	cl, err := newClient(cfg.BaseURL, cfg.APIKey, connLimit(cfg), timeout, cfg.IdleLimit())
	if err != nil {
		return nil, err
	}
	cl.headers = headers
	defer cl.close()
	if err := cl.pool.fill(ctx, conns); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("load: canceled while connecting to %s: %w", cfg.BaseURL, ctx.Err())
		}
		return nil, fmt.Errorf("%w: %s: %v", ErrUnreachable, cfg.BaseURL, err)
	}
	cal, fit, err := prepare(ctx, cfg, cl, wl)
	if err != nil {
		return nil, err
	}

	r := &runner{cfg: cfg, wl: wl, cl: cl, origin: time.Now(), sink: sink, in: make(chan results.Record, 1024), pacer: NewPacer(cfg)}
	if tw, ok := wl.(*traceWorkload); ok {
		r.pacer = tw.pacer()
	}
	collected := make(chan struct{})
	go r.collect(collected)

	// One loop from start to end: the first requests are the warmup and the
	// measured ones follow without a pause, so the measured phase starts
	// from a loop already running (see phases).
	switch {
	case len(cfg.Stages) > 0:
		r.runStages(ctx)
	case r.pacer != nil:
		r.openLoop(ctx)
	default:
		r.closedLoop(ctx)
	}
	r.wg.Wait()
	end := time.Now()
	r.finish()
	<-collected

	sort.Slice(r.recs, func(i, j int) bool { return r.recs[i].Seq < r.recs[j].Seq })
	res := &Result{Records: r.recs, Start: r.ph.start, End: end, MaxInFlight: int(r.maxInflight.Load()), Calibration: cal, Dataset: fit, LateDials: cl.pool.lateDials()}
	if allUnreachable(r.recs) {
		return res, fmt.Errorf("%w: %s: every request failed to connect: %s", ErrUnreachable, cfg.BaseURL, r.recs[0].Error)
	}
	return res, nil
}

// prepare calibrates wl's prompt lengths against the server and checks a
// dataset's entries against the model's context (see calibrate and
// datasetWorkload.fit). A mix prepares each member with its own workload;
// the run reports the first member's calibration and the first dataset
// member's fit.
func prepare(ctx context.Context, cfg Config, cl *client, wl workload) (results.Calibration, *results.DatasetFit, error) {
	if mw, ok := wl.(*mixWorkload); ok {
		var (
			cal results.Calibration
			fit *results.DatasetFit
		)
		for i, m := range mw.members {
			c, f, err := prepare(ctx, m.cfg, cl, m.wl)
			if err != nil {
				return cal, nil, fmt.Errorf("mix member %q: %w", m.name, err)
			}
			if i == 0 {
				cal = c
			}
			if fit == nil {
				fit = f
			}
		}
		return cal, fit, nil
	}
	cal := calibrate(ctx, cfg, cl, wl)
	if dw, ok := wl.(*datasetWorkload); ok {
		fit, err := dw.fit(ctx, cfg)
		return cal, fit, err
	}
	return cal, nil, nil
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
func connLimit(cfg Config) int {
	if len(cfg.Stages) > 0 {
		return stagesConnLimit(cfg)
	}
	return max(cfg.Concurrency, 0)
}

// runner is the state of one Run.
type runner struct {
	cfg    Config
	wl     workload
	cl     *client
	origin time.Time // offsets in records are from here
	ph     phases
	// pacer is the open loop's schedule; nil for a closed loop.
	pacer Pacer
	sink  chan<- results.Record
	in    chan results.Record
	recs  []results.Record

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

// send makes the request of slot s, planned at scheduled, and hands its
// record on.
func (r *runner) send(ctx context.Context, s slot, scheduled time.Time) {
	n := r.inflight.Add(1)
	for {
		m := r.maxInflight.Load()
		if n <= m || r.maxInflight.CompareAndSwap(m, n) {
			break
		}
	}
	rec := results.Record{Seq: s.seq, Warmup: s.warmup, Index: s.index, Scheduled: scheduled.Sub(r.origin)}
	req := r.wl.next(s)
	rec.Turn, rec.Session, rec.TraceRow = req.turn, req.session, req.traceRow
	rec.Member, rec.Stage = req.member, s.stage
	if wait := time.Until(req.notBefore); !req.notBefore.IsZero() && wait > 0 {
		// a conversation's think time: the user holds its next turn
		rec.Scheduled, rec.Think = req.notBefore.Sub(r.origin), wait
		r.pause(ctx, nil, req.notBefore)
	}
	rec.RequestedInputTokens, rec.RequestedOutputTokens = req.wantIn, req.wantOut
	r.cl.do(ctx, req, r.origin, &rec)
	r.inflight.Add(-1)
	r.in <- rec
}

// closedLoop runs Concurrency users that each send a request as soon as
// their previous one ended, until the phases say stop or ctx ends. With
// RampUp, user u sends its first request u/Concurrency of RampUp after the
// first user, so that start-up is staggered on purpose.
func (r *runner) closedLoop(ctx context.Context) *sync.WaitGroup {
	var stage sync.WaitGroup
	users := r.cfg.Concurrency
	if r.cfg.Requests > 0 {
		// users beyond the measured requests would only ever send warmup
		users = min(users, r.cfg.Requests)
	}
	if r.cfg.Warmup > 0 && r.ph.stage <= 1 {
		r.ph.needReady = users // every user's first request is warmup
	}
	start := time.Now()
	for u := range users {
		r.wg.Add(1)
		stage.Add(1)
		go func() {
			defer r.wg.Done()
			defer stage.Done()
			// due is when the user's first request is planned: its record's
			// Scheduled, so that the ramp's lag is measured against the plan
			due := start
			if ramp := r.cfg.RampUp; ramp > 0 && u > 0 {
				due = start.Add(ramp * time.Duration(u) / time.Duration(users))
				t := time.NewTimer(time.Until(due))
				select {
				case <-ctx.Done():
					t.Stop()
					return
				case <-t.C:
				}
			}
			for first := true; ctx.Err() == nil; first = false {
				s, ok := r.next(time.Now())
				if !ok {
					return
				}
				scheduled := time.Now()
				if first && r.cfg.RampUp > 0 {
					scheduled = due
				}
				r.send(ctx, s, scheduled)
				if first {
					r.ph.userReady()
				}
			}
		}()
	}
	return &stage
}

// openLoop sends requests when the pacer says, each in its own goroutine,
// waiting for a free slot when Concurrency caps requests in flight. The
// first Warmup arrivals are the warmup; the pacer's clock runs on through
// the measured phase.
func (r *runner) openLoop(ctx context.Context) {
	pacer := r.pacer
	sched, _ := pacer.(scheduler)
	var slots chan struct{}
	if r.cfg.Concurrency > 0 {
		slots = make(chan struct{}, r.cfg.Concurrency)
	}
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	loopStart := time.Now()
	for hits := uint64(0); ; hits++ {
		elapsed := time.Since(loopStart)
		wait, stop := pacer.Pace(elapsed, hits)
		if stop {
			return
		}
		due := elapsed + wait
		if sched != nil {
			due, _ = sched.due(hits)
		}
		if wait > r.cl.pool.predialAfter() {
			if !r.pause(ctx, r.cfg.Halt, loopStart.Add(elapsed+wait)) {
				return
			}
		} else if wait > 0 {
			timer.Reset(wait)
			select {
			case <-ctx.Done():
				return
			case <-r.cfg.Halt: // a nil Halt never fires
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
		at := loopStart.Add(due)
		s, ok := r.next(at)
		if !ok {
			if slots != nil {
				<-slots
			}
			return
		}
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			r.send(ctx, s, at)
			if slots != nil {
				<-slots
			}
		}()
	}
}

// pause waits until t, or until ctx ends or halt (nil: never) closes
// (false). A pause so long that the connections idle now will be stale
// when it ends opens a fresh connection shortly before t (see
// connPool.prepare), so that the send after it finds one and does not
// dial inside its own timing.
func (r *runner) pause(ctx context.Context, halt <-chan struct{}, t time.Time) bool {
	p := r.cl.pool
	if time.Until(t) > p.predialAfter() {
		if !sleepUntil(ctx, halt, t.Add(-p.predialLead())) {
			return false
		}
		p.prepareAsync(ctx) // best effort: a dial that fails is the send's to report
	}
	return sleepUntil(ctx, halt, t)
}

// sleepUntil waits until t, or until ctx ends or halt closes (false).
func sleepUntil(ctx context.Context, halt <-chan struct{}, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-halt:
		return false
	case <-timer.C:
		return true
	}
}

// next assigns the next request its slot, planned at at, or says the run
// is over (Requests measured, or Duration passed since the measured phase
// began at a plan time of at).
//
// The sender that starts the measured phase calls OnMeasureStart after
// releasing the phase lock, so that the other senders are not held up by
// it; in an open loop that sender is the dispatcher, so the hook must
// return at once (see Config.OnMeasureStart).
func (r *runner) next(at time.Time) (slot, bool) {
	s, ok, started := r.nextSlot(at)
	if started && r.cfg.OnMeasureStart != nil {
		r.cfg.OnMeasureStart()
	}
	return s, ok
}

// nextSlot is next under the phase lock; started reports whether this call
// began the measured phase.
func (r *runner) nextSlot(at time.Time) (s slot, ok, started bool) {
	p := &r.ph
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.measuring && p.warmSent >= r.cfg.Warmup && p.ready.Load() >= int64(p.needReady) {
		p.measuring, started = true, true
		p.start = at
		r.maxInflight.Store(r.inflight.Load())
	}
	s = slot{seq: int(r.seq.Add(1) - 1)}
	if !p.measuring {
		s.warmup, s.index = true, p.warmSent
		p.warmSent++
		return s, true, started
	}
	if p.stage > 0 && p.stageSent == 0 {
		p.stageStart = at
	}
	from := p.start
	if p.stage > 0 {
		from = p.stageStart
	}
	if (r.cfg.Requests > 0 && p.stageSent >= r.cfg.Requests) || (r.cfg.Duration > 0 && at.Sub(from) >= r.cfg.Duration) || r.cfg.halted() {
		r.seq.Add(-1)
		return slot{}, false, started
	}
	s.index, s.stage = p.measSent, p.stage
	p.measSent++
	p.stageSent++
	return s, true, started
}

// phases is the warmup/measured state of one Run. The measured phase
// begins at the first send after Warmup requests were sent and needReady
// users (a closed loop with a warmup: all of them) had their first request
// end; from then on every send is measured.
type phases struct {
	mu        sync.Mutex
	measuring bool
	start     time.Time // when the measured phase began
	warmSent  int
	measSent  int
	needReady int
	// stage is the stage being sent (from 1; 0 for a load without
	// stages), stageStart its first measured send and stageSent its
	// measured requests so far (all of them without stages).
	stage      int
	stageStart time.Time
	stageSent  int
	ready      atomic.Int64 // users whose first request ended
}

// userReady records that a closed-loop user's first request ended.
func (p *phases) userReady() { p.ready.Add(1) }

// allUnreachable reports whether there were records and every one failed
// before reaching the server.
func allUnreachable(recs []results.Record) bool {
	if len(recs) == 0 {
		return false
	}
	for i := range recs {
		if recs[i].ErrorKind != results.ErrorDisconnect || !recs[i].Unreached {
			return false
		}
	}
	return true
}
