package sim

import (
	"context"
	"testing"
	"time"
)

// newTestEngine builds an engine without its loop, to drive steps by hand.
func newTestEngine(t *testing.T, args ...string) *engine {
	t.Helper()
	c := mustArgs(t, append([]string{"--profile", "tiny"}, args...)...)
	r, err := c.resolve()
	if err != nil {
		t.Fatal(err)
	}
	return newEngine(r, newStats())
}

func (e *engine) addRequest(prompt []int, maxTokens int) *request {
	r := newRequest(prompt, maxTokens)
	r.arrival = time.Unix(0, 0)
	r.computeHashes(e.cfg.BlockSize, 0)
	e.waiting = append(e.waiting, r)
	return r
}

// step runs one scheduling step at a fake time and returns the batch size in tokens.
func (e *engine) step(now time.Time) int {
	e.schedule(now)
	n := 0
	for _, r := range e.sched {
		n += r.numNew
	}
	e.complete(now)
	return n
}

// checkBlocks verifies that blocks are neither lost nor shared wrongly.
func (e *engine) checkBlocks(t *testing.T) {
	t.Helper()
	used := 0
	for _, r := range e.running {
		used += len(r.blocks)
		if len(r.blocks)*e.cfg.BlockSize < r.computed {
			t.Fatalf("request holds %d blocks for %d computed tokens (prompt %d, tokens %d, committed %d, hits %d)", len(r.blocks), r.computed, r.promptLen, len(r.tokens), r.committed, r.cachedHits)
		}
	}
	inUse := 0
	for _, b := range e.cache.blocks {
		if b.ref > 0 {
			inUse++
		}
	}
	if inUse+e.cache.numFree != len(e.cache.blocks) {
		t.Fatalf("%d blocks in use + %d free != %d", inUse, e.cache.numFree, len(e.cache.blocks))
	}
}

// A long prompt is prefilled in chunks of --max-num-batched-tokens.
func TestChunkedPrefill(t *testing.T) {
	e := newTestEngine(t, "--max-num-batched-tokens", "256")
	r := e.addRequest(promptIDs(1, 600), 4)
	now := time.Unix(1, 0)
	for i, want := range []int{256, 256, 88, 1, 1, 1} {
		if got := e.step(now); got != want {
			t.Fatalf("step %d computed %d tokens, want %d", i, got, want)
		}
		e.checkBlocks(t)
		if out := len(r.tokens) - r.promptLen; (i < 2 && out != 0) || (i >= 2 && out != i-1) {
			t.Fatalf("after step %d: %d output tokens", i, out)
		}
	}
	if !r.done || r.reason != "length" {
		t.Errorf("done=%v reason=%q, want length", r.done, r.reason)
	}
}

// When KV blocks run out, the newest running request is preempted and
// recomputed later; every request still finishes.
func TestPreemption(t *testing.T) {
	e := newTestEngine(t, "--gpu-memory-utilization", "0.75", "--max-model-len", "512")
	var reqs []*request
	for i := 0; i < 12; i++ {
		reqs = append(reqs, e.addRequest(promptIDs(i, 100), 200))
	}
	now := time.Unix(1, 0)
	for steps := 0; len(e.running)+len(e.waiting) > 0; steps++ {
		if steps > 10000 {
			t.Fatal("requests never finished")
		}
		e.step(now)
		e.checkBlocks(t)
		if len(e.running) > e.cfg.MaxNumSeqs {
			t.Fatalf("%d running > max-num-seqs", len(e.running))
		}
	}
	if e.stats.preemptions == 0 {
		t.Errorf("no preemptions with 12 x 300 tokens in a %d-token cache", e.cfg.maxTokensKV)
	}
	for i, r := range reqs {
		if got := len(r.tokens) - r.promptLen; got != 200 {
			t.Errorf("request %d produced %d tokens, want 200", i, got)
		}
	}
	if e.cache.usage() != 0 {
		t.Errorf("cache usage %v after all finished, want 0", e.cache.usage())
	}
}

// A prompt whose blocks are cached skips their prefill.
func TestPrefixCacheHit(t *testing.T) {
	e := newTestEngine(t)
	now := time.Unix(1, 0)
	a := e.addRequest(promptIDs(5, 100), 1)
	for !a.done {
		e.step(now)
	}
	b := e.addRequest(promptIDs(5, 100), 1)
	if got := e.step(now); got != 100-96 {
		t.Errorf("second identical prompt computed %d tokens, want 4 (6 of 6 full blocks cached)", got)
	}
	if b.cachedHits != 96 {
		t.Errorf("cached hits %d, want 96", b.cachedHits)
	}
	// The whole prompt cached: the last token is still recomputed.
	c := e.addRequest(promptIDs(6, 96), 1)
	for !c.done {
		e.step(now)
	}
	d := e.addRequest(promptIDs(6, 96), 1)
	if got := e.step(now); got != 16 || d.cachedHits != 80 {
		t.Errorf("fully cached prompt computed %d tokens with %d hits, want 16 and 80", got, d.cachedHits)
	}
}

// --stall freezes the engine: requests during the stall wait it out.
func TestStall(t *testing.T) {
	_, base := startSim(t, mustArgs(t, "--profile", "tiny", "--stall", "300ms@0s"))
	first, err := stream(context.Background(), base+"/v1/completions", completion(promptIDs(1, 16), 4))
	if err != nil {
		t.Fatal(err)
	}
	second, err := stream(context.Background(), base+"/v1/completions", completion(promptIDs(2, 16), 4))
	if err != nil {
		t.Fatal(err)
	}
	if first.ttft < 300*time.Millisecond {
		t.Errorf("TTFT during the stall %v, want >= 300ms", first.ttft)
	}
	if second.ttft > first.ttft/2 {
		t.Errorf("TTFT after the stall %v, want well under %v", second.ttft, first.ttft)
	}
}

// --per-seq-overhead replaces the profile's per-sequence step cost, so a
// decode step of 8 sequences costs 4 x 2ms more than one of 4; without it
// the profile's 10µs per sequence hardly shows.
func TestPerSeqOverhead(t *testing.T) {
	decodeStep := func(seqs int, args ...string) time.Duration {
		e := newTestEngine(t, args...)
		for i := range seqs {
			e.addRequest(promptIDs(i, 32), 64)
		}
		now := time.Unix(1, 0)
		e.step(now) // the prefills
		e.schedule(now)
		if len(e.sched) != seqs {
			t.Fatalf("%d sequences scheduled, want %d", len(e.sched), seqs)
		}
		return e.stepTime()
	}
	four, eight := decodeStep(4, "--per-seq-overhead", "2ms"), decodeStep(8, "--per-seq-overhead", "2ms")
	t.Logf("decode step with 2ms per sequence: 4 seqs %v, 8 seqs %v", four, eight)
	if d := eight - four; d < 8*time.Millisecond || d > 8100*time.Microsecond {
		t.Errorf("8 sequences cost %v more than 4, want 8ms (4 x 2ms) plus their KV reads", d)
	}
	if r := float64(eight) / float64(four); r < 1.7 {
		t.Errorf("doubling the batch grows the step %.2fx, want at least 1.7x", r)
	}
	plain4, plain8 := decodeStep(4), decodeStep(8)
	if r := float64(plain8) / float64(plain4); r > 1.2 {
		t.Errorf("without the knob doubling the batch grows the step %.2fx (%v to %v), want under 1.2x", r, plain4, plain8)
	}
}
