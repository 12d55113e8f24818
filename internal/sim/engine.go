package sim

import (
	"errors"
	"math"
	"runtime"
	"sync"
	"time"
)

// errShutdown aborts requests still in flight when the server closes.
var errShutdown = errors.New("the engine shut down")

// engine is the continuous-batching scheduler after vLLM v1's: one goroutine
// runs steps back to back on an absolute real-time schedule. Each step it
// picks a batch within the token budget (running requests first, then
// waiting ones, prefills chunked), takes KV blocks (preempting the newest
// running request when they run out), waits until the step's modelled end,
// and hands each request its new token.
type engine struct {
	cfg   *resolved
	prof  *Profile
	tok   *Tokenizer
	cache *kvCache
	stats *stats

	// inbox is filled by handlers; wake tells the loop to look.
	inMu   sync.Mutex
	inbox  []*request
	resets []chan int // prefix-cache reset requests, answered by the loop: blocks in use (0: reset)
	closed bool       // set once the loop stopped taking requests
	wake   chan struct{}
	quit   chan struct{}
	done   chan struct{}
	ready  chan struct{}

	waiting []*request // FIFO; preempted requests go back to the front
	running []*request // in admission order; the last is preempted first
	sched   []*request // this step's batch (reused)

	firstArrival time.Time // for --stall
	nextStall    time.Time
	kvPerToken   float64 // bytes, all GPUs
	timing       *stepTiming
	spec         *specDecoder // nil: no speculative decoding
}

// stepTiming records how late steps end against their modelled deadline.
type stepTiming struct {
	mu    sync.Mutex
	steps int
	late  []time.Duration // per step, capped ring
	max   time.Duration
	model time.Duration // sum of modelled step times
	toks  int           // output tokens produced
}

func (t *stepTiming) add(d, model time.Duration, toks int) {
	t.mu.Lock()
	t.steps++
	t.model += model
	t.toks += toks
	if len(t.late) < 1<<16 {
		t.late = append(t.late, d)
	}
	if d > t.max {
		t.max = d
	}
	t.mu.Unlock()
}

func newEngine(cfg *resolved, st *stats) *engine {
	e := &engine{
		cfg:   cfg,
		prof:  cfg.prof,
		tok:   NewTokenizer(cfg.prof.Vocab),
		cache: newKVCache(cfg.numBlocks, cfg.BlockSize, !cfg.NoPrefixCaching),
		stats: st,
		wake:  make(chan struct{}, 1),
		quit:  make(chan struct{}),
		done:  make(chan struct{}),
		ready: make(chan struct{}),
	}
	e.kvPerToken = cfg.prof.kvBytesPerToken(cfg.kvDtype)
	if e.spec = newSpecDecoder(cfg.SpecTokens, cfg.specRate); e.spec != nil {
		st.spec = &specStats{perPos: make([]float64, e.spec.k)}
	}
	if cfg.recordTiming {
		e.timing = &stepTiming{}
	}
	return e
}

// submit queues r for the engine.
func (e *engine) submit(r *request) {
	e.inMu.Lock()
	if e.closed {
		e.inMu.Unlock()
		e.finish(r, "abort", errShutdown, time.Now())
		return
	}
	e.inbox = append(e.inbox, r)
	e.inMu.Unlock()
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

// resetPrefixCache asks the loop to forget every cached prefix, as vLLM's
// POST /reset_prefix_cache does, and returns how many blocks were still in
// use: vLLM resets only when none is (0), and otherwise leaves its cache
// as it was. It is -1 when the engine stopped.
func (e *engine) resetPrefixCache() int {
	done := make(chan int, 1)
	e.inMu.Lock()
	if e.closed {
		e.inMu.Unlock()
		return -1
	}
	e.resets = append(e.resets, done)
	e.inMu.Unlock()
	select {
	case e.wake <- struct{}{}:
	default:
	}
	select {
	case n := <-done:
		return n
	case <-e.done:
		return -1
	}
}

func (e *engine) stop() {
	if !e.quitting() {
		close(e.quit)
	}
	<-e.done
}

// run is the engine loop.
func (e *engine) run() {
	defer close(e.done)
	close(e.ready)
	var base time.Time // the previous step's deadline: the next step starts there
	for {
		e.drainInbox()
		e.dropCancelled()
		if len(e.running) == 0 && len(e.waiting) == 0 {
			if !e.idle(0) {
				return
			}
			base = time.Time{}
			continue
		}
		if e.quitting() {
			e.abortAll()
			return
		}
		now := time.Now()
		// Keep an absolute schedule: a step late by a hiccup (GC, a busy
		// host) is made up by the next ones starting at once, so modelled
		// time does not drift. Past maxLag behind, start again from now.
		if base.IsZero() || now.Sub(base) > maxLag {
			base = now
		}
		if e.maybeStall(base) {
			base = time.Now()
			continue
		}
		// An idle engine (in model time) starts when the next request came.
		if len(e.running) == 0 && len(e.waiting) > 0 && e.waiting[0].arrival.After(base) {
			base = e.waiting[0].arrival
		}
		e.schedule(base)
		if len(e.sched) == 0 {
			// Nothing fits (cannot happen with a valid config); wait for work.
			if !e.idle(10 * time.Millisecond) {
				return
			}
			base = time.Time{}
			continue
		}
		d := e.cfg.wall(time.Duration(float64(e.stepTime()) * e.cfg.Slowdown))
		deadline := base.Add(d)
		sleepUntil(deadline)
		late := time.Since(deadline)
		toks := e.complete(deadline)
		if e.timing != nil {
			e.timing.add(late, d, toks)
		}
		base = deadline
	}
}

// idle publishes the gauges and waits for a wake, or for timeout when it
// is above 0. It returns false when the engine was told to quit, with every
// request aborted.
func (e *engine) idle(timeout time.Duration) bool {
	e.publishGauges()
	var expired <-chan time.Time // nil: no timeout
	if timeout > 0 {
		expired = time.After(timeout)
	}
	select {
	case <-e.quit:
		e.abortAll()
		return false
	case <-e.wake:
	case <-expired:
	}
	return true
}

// quitting reports whether the engine was told to quit, without waiting.
func (e *engine) quitting() bool {
	select {
	case <-e.quit:
		return true
	default:
		return false
	}
}

// maxLag is how far behind its schedule the engine may run and still catch up.
const maxLag = 100 * time.Millisecond

// sleepUntil waits for t: a timer for all but the last ~1.1 ms (Go timers can
// fire up to a millisecond late), then a short busy wait. The busy wait does
// not yield: a woken engine goroutine runs first, so that with hundreds of
// stream writers runnable on one core the step still ends on time.
func sleepUntil(t time.Time) {
	const slack = 1100 * time.Microsecond
	if d := time.Until(t) - slack; d > 0 {
		time.Sleep(d)
	}
	for i := 0; time.Now().Before(t); i++ {
		if i%4096 == 4095 {
			runtime.Gosched() // only if the wait is long (a preempted thread)
		}
	}
}

func (e *engine) drainInbox() {
	e.inMu.Lock()
	in, resets := e.inbox, e.resets
	e.inbox, e.resets = nil, nil
	e.inMu.Unlock()
	for _, done := range resets {
		_, inUse := e.cache.reset()
		done <- inUse
	}
	for _, r := range in {
		if e.firstArrival.IsZero() {
			e.firstArrival = r.arrival
			if e.cfg.stall.dur > 0 {
				e.nextStall = r.arrival.Add(e.cfg.stall.at)
			}
		}
		e.waiting = append(e.waiting, r)
	}
}

// maybeStall freezes the engine when a --stall window has come.
func (e *engine) maybeStall(now time.Time) bool {
	if e.nextStall.IsZero() || now.Before(e.nextStall) {
		return false
	}
	end := e.nextStall.Add(e.cfg.stall.dur)
	if e.cfg.stall.every > 0 {
		e.nextStall = e.nextStall.Add(e.cfg.stall.every)
	} else {
		e.nextStall = time.Time{}
	}
	select {
	case <-e.quit:
	case <-time.After(time.Until(end)):
	}
	return true
}

// dropCancelled removes requests whose client went away.
func (e *engine) dropCancelled() {
	keep := e.running[:0]
	for _, r := range e.running {
		if r.cancelled.Load() {
			e.cache.release(r.blocks)
			r.blocks = r.blocks[:0]
			e.finish(r, "abort", nil, time.Now())
			continue
		}
		keep = append(keep, r)
	}
	clear(e.running[len(keep):])
	e.running = keep
	keepW := e.waiting[:0]
	for _, r := range e.waiting {
		if r.cancelled.Load() {
			e.finish(r, "abort", nil, time.Now())
			continue
		}
		keepW = append(keepW, r)
	}
	clear(e.waiting[len(keepW):])
	e.waiting = keepW
}

// blocksFor is the number of blocks n tokens occupy.
func (e *engine) blocksFor(n int) int { return (n + e.cfg.BlockSize - 1) / e.cfg.BlockSize }

// schedule picks this step's batch into e.sched.
func (e *engine) schedule(now time.Time) {
	e.sched = e.sched[:0]
	budget := e.cfg.MaxNumBatchedTokens
	preempted := false
	for i := 0; i < len(e.running) && budget > 0; {
		r := e.running[i]
		// a decoding request's draft tokens are verified in the step with its last token
		n := min(len(r.tokens)-r.computed+e.spec.draftLen(r, e.cfg.MaxModelLen), budget)
		need := e.blocksFor(r.computed+n) - len(r.blocks)
		victimSelf := false
		for need > 0 {
			var ok bool
			if r.blocks, ok = e.cache.alloc(need, r.blocks); ok {
				break
			}
			victim := e.running[len(e.running)-1]
			e.preempt(victim)
			preempted = true
			if victim == r {
				victimSelf = true
				break
			}
		}
		if victimSelf {
			break
		}
		r.numNew = n
		r.draft = max(0, n-(len(r.tokens)-r.computed))
		budget -= n
		e.sched = append(e.sched, r)
		i++
	}
	if preempted {
		return
	}
	for len(e.waiting) > 0 && len(e.running) < e.cfg.MaxNumSeqs && budget > 0 {
		r := e.waiting[0]
		if r.arrival.After(now) {
			break // it came after this step began (the engine is catching up)
		}
		total := len(r.tokens)
		// Prefix cache: never the last token, which must be recomputed to
		// produce logits (as vLLM does).
		hits := e.cache.lookup(r.hashes[:min(len(r.hashes), (total-1)/e.cfg.BlockSize)])
		cachedTokens := hits * e.cfg.BlockSize
		n := min(total-cachedTokens, budget)
		need := e.blocksFor(cachedTokens+n) - hits
		// Cached blocks nobody holds count as free: taking them uses them up.
		if need+e.cache.idleHits(r.hashes[:hits]) > e.cache.numFree {
			break
		}
		r.blocks = e.cache.take(r.hashes, hits, r.blocks[:0])
		var ok bool
		if r.blocks, ok = e.cache.alloc(need, r.blocks); !ok {
			panic("sim: KV block accounting is off")
		}
		r.computed = cachedTokens
		r.committed = hits
		e.stats.prefixQuery(total, cachedTokens, e.cache.caching)
		if !r.scheduled {
			r.scheduled = true
			r.cachedHits = cachedTokens
			r.scheduledAt = now
			e.stats.observeQueue(now.Sub(r.arrival))
		}
		r.running = true
		e.waiting = e.waiting[1:]
		e.running = append(e.running, r)
		r.numNew = n
		budget -= n
		e.sched = append(e.sched, r)
	}
	if len(e.waiting) == 0 {
		e.waiting = e.waiting[:0:0]
	}
}

// preempt frees victim's blocks and puts it back at the head of the queue;
// it will recompute its prompt and output so far (vLLM's RECOMPUTE mode).
func (e *engine) preempt(victim *request) {
	e.running = e.running[:len(e.running)-1]
	e.cache.release(victim.blocks)
	victim.blocks = victim.blocks[:0]
	victim.computed = 0
	victim.committed = 0
	victim.running = false
	e.waiting = append(e.waiting, nil)
	copy(e.waiting[1:], e.waiting)
	e.waiting[0] = victim
	e.stats.preempted()
}

// stepTime is the modelled duration of the batch in e.sched.
func (e *engine) stepTime() time.Duration {
	p := e.prof
	tp := float64(e.cfg.tp)
	var tokens, ctx, attn float64
	structured := 0
	for _, r := range e.sched {
		n := float64(r.numNew)
		tokens += n
		ctx += float64(r.computed) + n
		if r.numNew > 1 {
			attn += n * (float64(r.computed) + n/2)
		}
		if r.structured != nil {
			structured++
		}
	}
	weights := p.weightBytes()
	if p.Experts > 0 {
		dense := float64(p.Params-p.ExpertParams) * p.WeightBytesPerParam
		expert := float64(p.ExpertParams) * p.WeightBytesPerParam
		untouched := math.Pow(1-float64(p.ExpertsPerToken)/float64(p.Experts), tokens)
		weights = dense + expert*(1-untouched)
	}
	mem := (weights + ctx*e.kvPerToken) / tp / (p.MemBandwidth * p.BandwidthEfficiency)
	flops := 2*float64(p.ActiveParams)*tokens + 4*float64(p.Layers)*float64(p.Hidden)*attn
	comp := flops / tp / (p.PeakFLOPS * p.ComputeEfficiency)
	sec := max(mem, comp)
	if e.cfg.tp > 1 {
		comm := 2 * float64(p.Layers) * (p.TPLayerLatency.Seconds() + tokens*float64(p.Hidden)*2/p.InterconnectBandwidth)
		if e.cfg.EnableExpertParallel && p.Experts > 0 {
			comm *= p.EPCommFactor
		}
		sec += comm
	}
	d := time.Duration(sec*1e9) + p.StepOverhead + time.Duration(len(e.sched))*e.cfg.perSeq
	if structured > 0 {
		d += p.StructuredStepOverhead + time.Duration(structured)*p.StructuredPerSeq
	}
	return d
}

// complete ends the step at time t: KV is now computed for the batch, and
// every request that has caught up with its tokens samples one more.
func (e *engine) complete(t time.Time) (produced int) {
	bs := e.cfg.BlockSize
	st := e.stats
	stepTokens := 0
	for _, r := range e.sched {
		stepTokens += r.numNew
	}
	st.mu.Lock()
	st.iterationTokens(stepTokens)
	for _, r := range e.sched {
		r.computed += r.numNew - r.draft // a draft's KV counts once it is accepted
		draft := r.draft
		r.numNew, r.draft = 0, 0
		// Register newly full blocks in the prefix cache.
		for r.committed < len(r.hashes) && (r.committed+1)*bs <= r.computed && r.committed < len(r.blocks) {
			e.cache.commit(r.blocks[r.committed], r.hashes[r.committed])
			r.committed++
		}
		if r.computed < len(r.tokens) {
			continue // still prefilling (or recomputing after preemption)
		}
		out := len(r.tokens) - r.promptLen // tokens generated before this step's
		emit := 1
		if draft > 0 {
			a := e.spec.accepted(r, out, draft)
			st.specDraftLocked(draft, a)
			r.computed += a
			emit += a
		}
		// Publish the tokens and, with the last, the end: the last chunk
		// carries the finish_reason as vLLM's does. Tokens past a stop are
		// dropped, as vLLM drops accepted drafts after one.
		reason := ""
		r.mu.Lock()
		for j := 0; j < emit && reason == ""; j++ {
			r.tokens = append(r.tokens, e.nextToken(r, out+j))
			produced++
			reason = e.stopReason(r, out+j+1)
			e.hashNewBlock(r)
		}
		if reason != "" {
			r.done, r.reason = true, reason
		}
		r.mu.Unlock()
		if out == 0 {
			r.firstToken = t
			st.firstTokenLocked(t.Sub(r.arrival), t.Sub(r.scheduledAt), r.promptLen)
		} else {
			st.tokenLocked(t.Sub(r.lastToken), len(r.tokens)-r.promptLen-out)
		}
		r.lastToken = t
		if reason != "" {
			e.finishLocked(r, reason, t)
		}
		r.signal()
	}
	st.mu.Unlock()
	// Drop finished requests from the running list.
	keep := e.running[:0]
	for _, r := range e.running {
		if r.finished {
			continue
		}
		keep = append(keep, r)
	}
	clear(e.running[len(keep):])
	e.running = keep
	e.publishGauges()
	return produced
}

// stopReason is why r ends with its generated-th output token, the
// last of r.tokens, or "" when it goes on.
func (e *engine) stopReason(r *request, generated int) string {
	switch {
	case r.structured != nil && generated >= len(r.structured):
		return "stop"
	case generated >= r.maxTokens:
		return "length"
	case r.structured == nil && r.stopAt > 0 && generated >= r.stopAt && generated >= r.minTokens:
		return "stop"
	case len(r.tokens) >= e.cfg.MaxModelLen:
		return "length"
	}
	return ""
}

// hashNewBlock hashes the block r's newest token completed, if any.
func (e *engine) hashNewBlock(r *request) {
	bs := e.cfg.BlockSize
	if n := len(r.tokens); n%bs == 0 && len(r.hashes) == n/bs-1 {
		parent := r.salt
		if len(r.hashes) > 0 {
			parent = r.hashes[len(r.hashes)-1]
		}
		r.hashes = append(r.hashes, blockHash(parent, r.tokens[n-bs:n]))
	}
}

// nextToken is output token number i of r: fixed by the structured answer,
// or drawn from the request's seed.
func (e *engine) nextToken(r *request, i int) int {
	if r.structured != nil {
		return r.structured[i]
	}
	return e.tok.word(mix64(r.seedKey + uint64(i+1)*0x9e3779b97f4a7c15))
}

// finishLocked ends r (stats lock held).
func (e *engine) finishLocked(r *request, reason string, t time.Time) {
	e.cache.release(r.blocks)
	r.blocks = nil
	r.finished = true
	r.running = false
	e.stats.finishLocked(r, reason, t)
}

// finish ends r outside a step (abort or shutdown).
func (e *engine) finish(r *request, reason string, err error, t time.Time) {
	r.finished = true
	r.running = false
	e.stats.mu.Lock()
	if err == nil {
		e.stats.finishLocked(r, reason, t)
	}
	e.stats.mu.Unlock()
	r.mu.Lock()
	r.done, r.reason, r.err = true, reason, err
	r.mu.Unlock()
	r.signal()
}

func (e *engine) abortAll() {
	e.inMu.Lock()
	e.closed = true
	e.inMu.Unlock()
	e.drainInbox()
	for _, r := range e.running {
		e.finish(r, "abort", errShutdown, time.Now())
	}
	for _, r := range e.waiting {
		e.finish(r, "abort", errShutdown, time.Now())
	}
	e.running, e.waiting = nil, nil
	e.publishGauges()
}

func (e *engine) publishGauges() {
	e.stats.setGauges(len(e.running), len(e.waiting), e.cache.usage())
}
