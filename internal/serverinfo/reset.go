package serverinfo

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/llmgate/llmgate/internal/telemetry"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/untrusted"
)

// Reset bounds: how long to wait for the server to have no request in
// flight, and for its prefix-cache counters to show the check request.
const (
	ResetIdleWait  = 10 * time.Second
	resetCountWait = 3 * time.Second
	resetPoll      = 50 * time.Millisecond
	// canaryTokens is the check prompt's length: four 16-token blocks.
	canaryTokens = 64
)

// ResetPrefixCache asks the server at o.BaseURL to forget its cached
// prefixes (POST /reset_prefix_cache, which vLLM serves when started with
// VLLM_SERVER_DEV_MODE=1), so that a run does not measure cache hits left
// by the one before, and checks that it did. vLLM answers 200 whether or
// not it reset: it resets only when no request holds KV blocks, and
// otherwise logs "Failed to reset prefix cache because some blocks (N) are
// not freed yet" and carries on. So, where the server's /metrics says how
// many requests run and counts prefix-cache hits, the reset is made only
// once none is in flight, and checked: a prompt sent before it must not
// hit the cache after it. A reset that could not be checked is recorded
// as done but unverified; f (the server's Features, when known) spares asking
// a server without the endpoint again.
func ResetPrefixCache(ctx context.Context, o Options, f *Features) results.CacheReset {
	if f != nil && f.Reset.Missing() {
		return results.CacheReset{Reason: fmt.Sprintf("POST /reset_prefix_cache: http %d, found by the server's probe (vLLM serves it only when started with VLLM_SERVER_DEV_MODE=1)", f.Reset.Status)}
	}
	hc, done := o.client()
	defer done()
	counted := f == nil || (f.Metrics.OK() && f.MetricsFamily != "")
	var snap telemetry.ServerSnapshot
	if counted {
		var busy float64
		snap, busy, counted = waitIdle(ctx, hc, o)
		if busy > 0 {
			return results.CacheReset{Reason: fmt.Sprintf("not reset: %.0f request(s) still in flight on the server after %v (a server with requests holding KV blocks answers 200 but does not reset)", busy, resetIdleWait)}
		}
		counted = counted && snap.HasPrefixHits && snap.HasPrefixQueries
	}
	if counted {
		if err := canary(ctx, hc, o, f); err != nil {
			counted = false // cannot check; the reset is still worth making
		}
	}
	code, b, err := do(ctx, hc, http.MethodPost, o.BaseURL, "/reset_prefix_cache", o.APIKey, nil, 1<<16)
	switch {
	case err != nil:
		return results.CacheReset{Reason: untrusted.Short(err.Error(), 300)}
	case code == http.StatusNotFound || code == http.StatusMethodNotAllowed:
		return results.CacheReset{Reason: fmt.Sprintf("POST /reset_prefix_cache: http %d (vLLM serves it only when started with VLLM_SERVER_DEV_MODE=1)", code)}
	case code != http.StatusOK:
		return results.CacheReset{Reason: statusError(http.MethodPost, "/reset_prefix_cache", code, b).Error()}
	case !counted:
		return results.CacheReset{Done: true, Unverified: "the server's /metrics has no prefix-cache counters to check it by"}
	}
	before, ok := scrape(ctx, hc, o)
	if !ok {
		return results.CacheReset{Done: true, Unverified: "/metrics could not be read after the reset"}
	}
	if err := canary(ctx, hc, o, f); err != nil {
		return results.CacheReset{Done: true, Unverified: "the check request failed: " + untrusted.Short(err.Error(), 200)}
	}
	deadline := time.Now().Add(resetCountWait)
	for {
		after, ok := scrape(ctx, hc, o)
		if ok && after.PrefixQueries > before.PrefixQueries {
			if hits := after.PrefixHits - before.PrefixHits; hits > 0 {
				return results.CacheReset{Reason: fmt.Sprintf("the server answered 200 but did not reset: a prompt cached before the reset hit %.0f cached tokens after it", hits)}
			}
			return results.CacheReset{Done: true}
		}
		if time.Now().After(deadline) || !sleep(ctx, resetPoll) {
			return results.CacheReset{Done: true, Unverified: "the check request did not show in the prefix-cache counters"}
		}
	}
}

// waitIdle scrapes /metrics until no request runs or waits, at most
// ResetIdleWait; busy is how many still did, ok whether /metrics gave
// server metrics at all.
func waitIdle(ctx context.Context, hc *http.Client, o Options) (snap telemetry.ServerSnapshot, busy float64, ok bool) {
	deadline := time.Now().Add(resetIdleWait)
	for {
		snap, ok = scrape(ctx, hc, o)
		if !ok {
			return snap, 0, false
		}
		busy = snap.RequestsRunning + snap.RequestsWaiting
		if busy == 0 || time.Now().After(deadline) || !sleep(ctx, resetPoll) {
			return snap, busy, true
		}
	}
}

// scrape reads the server metrics once.
func scrape(ctx context.Context, hc *http.Client, o Options) (telemetry.ServerSnapshot, bool) {
	code, b, err := get(ctx, hc, o.BaseURL, "/metrics", o.APIKey, MaxMetricsBytes)
	if err != nil || code != http.StatusOK {
		return telemetry.ServerSnapshot{}, false
	}
	s, err := telemetry.ParseServerMetrics(bytes.NewReader(b))
	return s, err == nil && s.Any()
}

// resetIdleWait is ResetIdleWait; tests shorten it.
var resetIdleWait = ResetIdleWait

// canary sends the check prompt, the same every time, for one token:
// token ids where the server takes them, else text.
func canary(ctx context.Context, hc *http.Client, o Options, f *Features) error {
	var prompt any
	if f == nil || !f.TokenIDs.Known || f.TokenIDs.Supported {
		ids := make([]int, canaryTokens)
		for i := range ids {
			ids[i] = 29000 + i
		}
		prompt = ids
	} else {
		prompt = strings.TrimSpace(strings.Repeat(" cache check", canaryTokens/2))
	}
	raw, _ := json.Marshal(map[string]any{"model": o.Model, "prompt": prompt, "max_tokens": 1})
	code, b, err := do(ctx, hc, http.MethodPost, o.BaseURL, "/v1/completions", o.APIKey, bytes.NewReader(raw), 1<<20)
	if err != nil {
		return err
	}
	if code != http.StatusOK {
		return statusError(http.MethodPost, "/v1/completions", code, b)
	}
	return nil
}

// sleep waits d; false when ctx ended first.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
