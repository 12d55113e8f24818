package load

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// gatedReads is a read function whose calls each say that they began and
// then wait for the test to release them with a value or an error.
type gatedReads struct {
	calls   atomic.Int64
	began   chan int          // the call's number, from 1
	release []chan readResult // by call number
	ended   []atomic.Bool     // by call number
	// endedBefore[n] is whether call n-1 had ended when call n began
	endedBefore []atomic.Bool
}

type readResult struct {
	v   int
	err error
}

func newGatedReads(n int) *gatedReads {
	g := &gatedReads{began: make(chan int, n), release: make([]chan readResult, n+1),
		ended: make([]atomic.Bool, n+1), endedBefore: make([]atomic.Bool, n+1)}
	for i := range g.release {
		g.release[i] = make(chan readResult, 1)
	}
	return g
}

func (g *gatedReads) read(ctx context.Context) (int, error) {
	n := int(g.calls.Add(1))
	if n >= len(g.release) {
		return 0, errors.New("one read too many")
	}
	g.endedBefore[n].Store(g.ended[n-1].Load())
	g.began <- n
	defer g.ended[n].Store(true)
	select {
	case r := <-g.release[n]:
		return r.v, r.err
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// ticks is a clock that moves one second a call: the reads' start times
// are in the order the reads began.
func ticks() func() time.Time {
	var n atomic.Int64
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return func() time.Time { return t0.Add(time.Duration(n.Add(1)) * time.Second) }
}

// TestSamplerDropsReadsBegunBeforeRestart takes a read, restarts while it
// is in flight and lets it end after the Restart's: it is dropped, as is
// its failure; Stop waits for the Restart's read before it takes the last,
// and the samples come out in the order their reads began although they
// ended in the other.
func TestSamplerDropsReadsBegunBeforeRestart(t *testing.T) {
	g := newGatedReads(3)
	s := NewSampler(g.read, time.Hour, 0, ticks()) // no periodic read in the test's time
	ctx := context.Background()
	s.Start(ctx, false)
	warm := make(chan struct{})
	go func() { defer close(warm); s.take(ctx) }()
	if n := <-g.began; n != 1 {
		t.Fatalf("read %d began, want 1", n)
	}
	s.Restart(ctx)
	if n := <-g.began; n != 2 {
		t.Fatalf("read %d began, want the Restart's (2)", n)
	}
	g.release[1] <- readResult{err: errors.New("of the warmup")}
	<-warm
	stopped := make(chan SamplerResult[int])
	go func() { stopped <- s.Stop(ctx, FinalAlways) }()
	// A Stop that did not wait would begin its last read, or return, within
	// the grace; one that waits passes whatever the grace (it only bounds
	// how surely a wrong Stop is caught).
	select {
	case r := <-stopped:
		t.Fatalf("Stop returned %+v while the Restart's read was in flight", r)
	case <-g.began:
		t.Fatal("Stop took its last read while the Restart's was in flight")
	case <-time.After(50 * time.Millisecond):
	}
	g.release[2] <- readResult{v: 20}
	if n := <-g.began; n != 3 || !g.endedBefore[3].Load() {
		t.Fatalf("read %d began (Restart's ended before it: %v), want 3 after 2 ended", n, g.endedBefore[3].Load())
	}
	g.release[3] <- readResult{v: 30}
	r := <-stopped
	if r.Failed != 0 || r.Err != nil || len(r.Samples) != 2 || r.Samples[0].Value() != 20 || r.Samples[1].Value() != 30 {
		t.Fatalf("result %+v: want the Restart's read and the last, no failure", r)
	}
	if !r.Samples[0].At().After(r.Origin) || !r.Samples[1].At().After(r.Samples[0].At()) {
		t.Errorf("origin %v, samples at %v and %v: want each after the one before", r.Origin, r.Samples[0].At(), r.Samples[1].At())
	}
}

// TestSamplerOrdersByStart lets a read begun after the Restart's end
// first: the samples are in the order the reads began, and a failure
// after the Restart is counted with its reason.
func TestSamplerOrdersByStart(t *testing.T) {
	g := newGatedReads(4)
	s := NewSampler(g.read, time.Hour, 0, ticks())
	ctx := context.Background()
	s.Start(ctx, false)
	s.Restart(ctx)
	<-g.began // 1 is the Restart's read, 2 the next
	later := make(chan struct{})
	go func() { defer close(later); s.take(ctx) }()
	<-g.began
	g.release[2] <- readResult{v: 2}
	<-later
	g.release[1] <- readResult{v: 1}
	go func() { <-g.began; g.release[3] <- readResult{err: errors.New("exporter down")} }()
	r := s.Stop(ctx, FinalAlways)
	if len(r.Samples) != 2 || r.Samples[0].Value() != 1 || r.Samples[1].Value() != 2 {
		t.Errorf("samples %+v: want 1 then 2, as they began", r.Samples)
	}
	if r.Failed != 1 || r.Err == nil || r.Err.Error() != "exporter down" {
		t.Errorf("%d failed (%v), want the last read's failure", r.Failed, r.Err)
	}
}

// TestSamplerLastRead reads no more after a read marked lastRead, and
// keeps its failure across a Restart; FinalIfNone then takes no read.
func TestSamplerLastRead(t *testing.T) {
	g := newGatedReads(2)
	s := NewSampler(g.read, time.Hour, 0, ticks())
	ctx := context.Background()
	g.release[1] <- readResult{err: lastRead(errors.New("HTTP 404"))}
	s.Start(ctx, true)
	<-g.began
	s.Restart(ctx)
	r := s.Stop(ctx, FinalIfNone)
	if n := g.calls.Load(); n != 1 {
		t.Errorf("%d reads, want 1: none after the last", n)
	}
	if r.Failed != 1 || r.Err == nil || r.Err.Error() != "HTTP 404" || len(r.Samples) != 0 {
		t.Errorf("result %+v: want the 404 kept across the Restart, no sample", r)
	}
}

// TestSamplerBound counts a read past the bound on the samples kept.
func TestSamplerBound(t *testing.T) {
	g := newGatedReads(2)
	s := NewSampler(g.read, time.Hour, 1, ticks())
	ctx := context.Background()
	g.release[1] <- readResult{v: 1}
	g.release[2] <- readResult{v: 2}
	s.Start(ctx, true)
	r := s.Stop(ctx, FinalAlways)
	if len(r.Samples) != 1 || r.Samples[0].Value() != 1 || r.Overflow != 1 || r.Failed != 0 {
		t.Errorf("result %+v: want 1 sample kept and 1 over the bound", r)
	}
}
