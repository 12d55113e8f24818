package sim

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// modelTimes is what the model says one request of promptLen tokens and
// maxTokens output tokens takes on a server of its own at real time: its
// TTFT (the prefill steps, the first token with the last) and its TPOT
// (the mean of the decode steps after it). It drives an engine by hand, so
// no clock is involved.
func modelTimes(t *testing.T, promptLen, maxTokens int, args ...string) (ttft, tpot time.Duration) {
	t.Helper()
	e := newTestEngine(t, args...)
	r := e.addRequest(promptIDs(1, promptLen), maxTokens)
	var decode time.Duration
	for steps := 0; !r.done; steps++ {
		if steps > promptLen+maxTokens {
			t.Fatal("the request did not finish")
		}
		e.schedule(time.Unix(1, 0))
		d := e.stepTime()
		first := len(r.tokens) == r.promptLen
		e.complete(time.Unix(1, 0))
		if first {
			ttft += d
		} else {
			decode += d
		}
	}
	return ttft, decode / time.Duration(maxTokens-1)
}

// TestTimeScale runs the same requests on a real-time server and on one at
// --time-scale 0.1, and holds each server's measured TTFT and TPOT to the
// model's times scaled by its factor: the 0.1 server answers ten times
// faster than the model's real time, and the real-time one at the model's
// time (so the scaling is not a slow machine's accident). It compares with
// the model's own per-token times, not the two servers' ratio, so that a
// busy moment on one server alone does not fail it: no step ends before
// its modelled deadline, so each time is at least its model's (0.9x
// allows for rounding), and the upper bound allows for a late last token
// and the HTTP round trip under -race on a loaded machine. The median of
// 3 requests per server is compared.
func TestTimeScale(t *testing.T) {
	// The A100 profile: ~11 ms decode steps (1.1 ms at 0.1) and a slow,
	// compute-bound prefill of 2,048 tokens (~180 ms), so the times are
	// well above the cost of sending such a prompt.
	const profile, promptLen, outTokens, rounds = "llama-3.1-8b-a100", 2048, 32, 3
	modelTTFT, modelTPOT := modelTimes(t, promptLen, outTokens, "--profile", profile)
	t.Logf("model: TTFT %v, TPOT %v", modelTTFT, modelTPOT)
	for _, f := range []float64{1, 0.1} {
		t.Run(fmt.Sprintf("x%g", f), func(t *testing.T) {
			_, base := startSim(t, mustArgs(t, "--profile", profile, "--time-scale", fmt.Sprint(f)))
			want := func(model time.Duration) time.Duration { return time.Duration(float64(model) * f) }
			var ttft, tpot []time.Duration
			for i := range rounds {
				r, err := stream(context.Background(), base+"/v1/completions", completion(promptIDs(i, promptLen), outTokens))
				if err != nil || r.status != 200 || r.usage == nil || r.usage.CompletionTokens != outTokens {
					t.Fatalf("request %d: %v, status %d, usage %+v %s", i, err, r.status, r.usage, r.errBody)
				}
				ttft = append(ttft, r.ttft)
				// TPOT from the last token's time less the model's TTFT: a
				// client that reads its first token late gets the next ones
				// in a burst, so the TTFT it measured would shrink the TPOT
				// below the model's; the last token's time cannot be early.
				tpot = append(tpot, (r.e2e-want(modelTTFT))/time.Duration(outTokens-1))
			}
			// The slack is 40% of the real-time model: room for the HTTP
			// round trip (parsing a 2,048-token prompt takes ~5 ms here, more
			// under -race) and a late last token, yet a server that did not
			// scale, at least the model's whole time, fails at 0.1.
			check := func(name string, got []time.Duration, model time.Duration) {
				med, w := percentile(got, 0.5), want(model)
				t.Logf("%s median %v of %v; model %v x %g = %v (x%.2f)", name, med, got, model, f, w, float64(med)/float64(w))
				if float64(med) < 0.9*float64(w) || med > w+model*2/5 {
					t.Errorf("%s at --time-scale %g = %v, want the model's %v x %g = %v (from 0.9x to %v more)", name, f, med, model, f, w, model*2/5)
				}
			}
			check("TTFT", ttft, modelTTFT)
			check("TPOT", tpot, modelTPOT)
		})
	}
}

// TestTimeScaleStallAndStartup: --time-scale scales the other modelled
// durations too, a --stall's length, start and period and the
// --startup-delay, and leaves the keep-alive timeout, which is vLLM's
// HTTP server's and not modelled, as it was.
func TestTimeScaleStallAndStartup(t *testing.T) {
	c := mustArgs(t, "--profile", "tiny", "--time-scale", "0.1", "--stall", "2s@10s/30s", "--startup-delay", "3s")
	c.KeepAlive = 5 * time.Second
	r, err := c.resolve()
	if err != nil {
		t.Fatal(err)
	}
	if want := (stallSpec{dur: 200 * time.Millisecond, at: time.Second, every: 3 * time.Second}); r.stall != want {
		t.Errorf("stall at --time-scale 0.1 = %+v, want %+v", r.stall, want)
	}
	if got := r.keepAlive(); got != 5*time.Second {
		t.Errorf("keep-alive at --time-scale 0.1 = %v, want 5s: it is not modelled", got)
	}
	s, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	start := time.Now()
	if err := s.startUp(t.Context()); err != nil {
		t.Fatal(err)
	}
	// 300 ms of wall time; a server that did not scale would take 3 s
	if took := time.Since(start); took < 300*time.Millisecond || took > 2*time.Second {
		t.Errorf("a 3s start-up at --time-scale 0.1 took %v, want 300ms", took)
	}
}
