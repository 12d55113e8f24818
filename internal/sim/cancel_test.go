package sim

import (
	"context"
	"sync"
	"testing"
	"time"
)

// A client that goes away mid-answer, streaming or not, frees its engine
// slot and KV blocks, and the request counts as aborted in /metrics. (The
// handlers must return too: the test server's Close waits for them.)
func TestClientGoneFreesSlot(t *testing.T) {
	// --slowdown keeps the 1000-token answers running long after the cancel
	s, base := startSim(t, mustArgs(t, "--profile", "tiny", "--slowdown", "20"))
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		body := completion(promptIDs(i, 16), 1000)
		if i == 2 {
			delete(body, "stream_options")
			body["stream"] = false
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			stream(ctx, base+"/v1/completions", body) // fails once canceled
		}()
	}
	waitFor(t, s, "all three requests generating", func(st Snapshot) bool { return st.Running == 3 && st.GenTokens >= 9 })
	cancel()
	wg.Wait()
	waitFor(t, s, "the engine to drop the abandoned requests", func(st Snapshot) bool {
		return st.Running == 0 && st.Waiting == 0 && st.KVCacheUsage == 0 && st.Requests == 3
	})
	if st := s.Stats(); st.GenTokens >= 3000 {
		t.Errorf("the engine generated all %v tokens: the cancel came too late to test anything", st.GenTokens)
	}
	if m := scrape(t, base); m["vllm:request_success_total"] != 3 || m["vllm:num_requests_running"] != 0 {
		t.Errorf("after the cancel: request_success_total %v (want 3, all abort), running %v", m["vllm:request_success_total"], m["vllm:num_requests_running"])
	}
}

// waitFor polls the simulator's counters until cond holds, failing the test
// after a generous bound (a loaded machine is slow, not stuck).
func waitFor(t *testing.T, s *Server, what string, cond func(Snapshot) bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond(s.Stats()) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s: %+v", what, s.Stats())
		}
		time.Sleep(time.Millisecond) // polling a condition, not synchronising on time
	}
}
