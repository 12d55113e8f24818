package load

import (
	"context"
	"errors"
	"sort"
	"sync"
	"time"
)

// Sampler reads something periodically while a run drives a server (its
// /metrics, its GPUs) and keeps the readings of the measured phase. It is
// the life cycle both share: Start, a read every interval, Restart (the
// measured phase begins: what came before is forgotten and a fresh read
// taken without waiting for it), Stop (the reads end, Restart's read is
// waited for, and a last read is taken). A read begun before a Restart is
// dropped when it ends: it is of the warmup. Periodic reads never overlap
// one another (a slow one delays the next); Restart's may overlap one, so
// the samples are returned in the order their reads began.
type Sampler[T any] struct {
	read     func(context.Context) (T, error)
	interval time.Duration
	now      func() time.Time
	// max bounds the samples kept (0: no bound); a read past it is counted
	// in Result.Overflow.
	max int
	// compact, when set, is called with the samples each time one is added,
	// in the order they were added, under the sampler's lock: it may forget
	// what a long run need not keep of the older ones.
	compact func([]Sample[T])

	mu       sync.Mutex
	gen      int       // bumped by Restart: a read begun before it is dropped
	origin   time.Time // Start's or the latest Restart's time
	snaps    []Sample[T]
	failed   int
	overflow int
	lastErr  error
	// stopped is set once a read failed with an error marked by lastRead:
	// there is no read after it.
	stopped bool

	restarts sync.WaitGroup // Restart's reads in flight
	cancel   context.CancelFunc
	done     chan struct{}
}

// Sample is one read's value and when the read began.
type Sample[T any] struct {
	at   time.Time
	snap T // what the read saw
}

// At is when the read began.
func (s Sample[T]) At() time.Time { return s.at }

// Value is what the read returned.
func (s Sample[T]) Value() T { return s.snap }

// SamplerResult is what a sampler kept of the measured phase.
type SamplerResult[T any] struct {
	Origin   time.Time   // when the phase began (Start or the latest Restart)
	Samples  []Sample[T] // in the order their reads began
	Failed   int         // reads that failed
	Overflow int         // reads past the bound on the samples kept
	Err      error       // the latest failed read's, nil when none failed
}

// FinalRead says when Stop takes a last read.
type FinalRead int

const (
	// FinalAlways takes it always: the "after" of counters read before and after.
	FinalAlways FinalRead = iota
	// FinalIfNone takes it only when the phase has no sample (it was
	// shorter than one read).
	FinalIfNone
)

// NewSampler returns a sampler calling read every interval, keeping at
// most max samples (0: no bound), its clock now (time.Now when nil).
func NewSampler[T any](read func(context.Context) (T, error), interval time.Duration, max int, now func() time.Time) *Sampler[T] {
	if now == nil {
		now = time.Now
	}
	return &Sampler[T]{read: read, interval: interval, max: max, now: now}
}

// Start sets the phase's clock to now and reads every interval until Stop
// or until ctx ends. With first, a first read is taken on the caller's
// goroutine before the periodic ones begin.
func (s *Sampler[T]) Start(ctx context.Context, first bool) {
	s.mu.Lock()
	s.origin = s.now()
	s.mu.Unlock()
	if first {
		s.take(ctx)
	}
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
				s.take(ctx)
			}
		}
	}()
}

// Restart forgets the samples so far and their failures (a sampler that
// stopped keeps saying why), sets the phase's clock to now, and takes a
// fresh read on a goroutine of its own: the caller, which may pace a run's
// sends, does not wait for it. Stop does.
func (s *Sampler[T]) Restart(ctx context.Context) {
	s.mu.Lock()
	s.gen++
	s.snaps = s.snaps[:0]
	s.overflow = 0
	if !s.stopped {
		s.failed, s.lastErr = 0, nil
	}
	s.origin = s.now()
	s.mu.Unlock()
	s.restarts.Add(1)
	go func() {
		defer s.restarts.Done()
		s.take(ctx)
	}()
}

// Stop ends the periodic reads, waits for Restart's, takes the last read
// final asks for (with ctx) and returns what was kept.
func (s *Sampler[T]) Stop(ctx context.Context, final FinalRead) SamplerResult[T] {
	if s.cancel != nil {
		s.cancel()
		<-s.done
	}
	s.restarts.Wait()
	s.mu.Lock()
	none := len(s.snaps) == 0
	s.mu.Unlock()
	if final == FinalAlways || none {
		s.take(ctx)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	// A Restart's read and a periodic one may overlap and end in either order.
	sort.SliceStable(s.snaps, func(i, j int) bool { return s.snaps[i].at.Before(s.snaps[j].at) })
	return SamplerResult[T]{Origin: s.origin, Samples: append([]Sample[T](nil), s.snaps...),
		Failed: s.failed, Overflow: s.overflow, Err: s.lastErr}
}

// take reads once and records the sample or the failure, unless a Restart
// came while it ran (it is then of the warmup) or ctx ended (the failure
// is then the sampler's, not the server's).
func (s *Sampler[T]) take(ctx context.Context) {
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		return
	}
	gen := s.gen
	s.mu.Unlock()
	at := s.now()
	v, err := s.read(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	var last *lastReadError
	if errors.As(err, &last) {
		s.stopped = true
	}
	switch {
	case gen != s.gen:
	case err != nil:
		if ctx.Err() == nil {
			s.failed++
			s.lastErr = err
		}
	case s.max > 0 && len(s.snaps) >= s.max:
		s.overflow++
	default:
		s.snaps = append(s.snaps, Sample[T]{at: at, snap: v})
		if s.compact != nil {
			s.compact(s.snaps)
		}
	}
}

// lastReadError is a read's failure after which no read is taken.
type lastReadError struct{ err error }

func (e *lastReadError) Error() string { return e.err.Error() }
func (e *lastReadError) Unwrap() error { return e.err }

// lastRead marks err as ending the sampling: the read that returns it is
// counted failed, and no read follows.
func lastRead(err error) error { return &lastReadError{err: err} }
