package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// tailServer is an OpenAI-style streaming server on loopback whose timing
// is known: every answer has 8 tokens 5 ms apart after a first token at
// ttft; with slowEvery > 0, every slowEvery-th request (by arrival) waits
// slowTTFT for its first token instead. Slowing every 10th request ×10
// moves p95 TTFT tenfold and leaves the median where it was: a tail-only
// regression, as preemptions or long prefills make.
type tailServer struct {
	ttft, slowTTFT time.Duration
	slowEvery      int64
	n              atomic.Int64
}

func (s *tailServer) start(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(srv.Close)
	return srv.URL
}

func (s *tailServer) handle(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/health":
		return
	case "/v1/models":
		io.WriteString(w, `{"object":"list","data":[{"id":"tail-model","object":"model"}]}`)
		return
	case "/v1/completions", "/v1/chat/completions":
	default:
		http.NotFound(w, r)
		return
	}
	var body struct {
		MaxTokens int `json:"max_tokens"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body.MaxTokens <= 0 {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	chat := r.URL.Path == "/v1/chat/completions"
	ttft := s.ttft
	if k := s.n.Add(1); s.slowEvery > 0 && k%s.slowEvery == 0 {
		ttft = s.slowTTFT
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fl := w.(http.Flusher)
	time.Sleep(ttft)
	for i := 1; i <= body.MaxTokens; i++ {
		usage := fmt.Sprintf(`"usage":{"prompt_tokens":16,"completion_tokens":%d,"total_tokens":%d}`, i, 16+i)
		if chat {
			fmt.Fprintf(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"tok \"},\"finish_reason\":null}],%s}\n\n", usage)
		} else {
			fmt.Fprintf(w, "data: {\"id\":\"c\",\"object\":\"text_completion\",\"choices\":[{\"index\":0,\"text\":\"tok \",\"finish_reason\":null}],%s}\n\n", usage)
		}
		fl.Flush()
		if i < body.MaxTokens {
			time.Sleep(5 * time.Millisecond)
		}
	}
	io.WriteString(w, "data: [DONE]\n\n")
	fl.Flush()
}

// TestGateTailOnlyRegression runs `llmgate gate` end to end against a
// server of known timing: a baseline from the server as it is, then the
// same suite against one whose every 10th request waits ten times longer
// for its first token. The median does not move; p95 does, far past its
// 50% band, and the gate must fail on it with the quantile's own evidence.
// A rerun of the unchanged server passes, so the failure is the tail's.
func TestGateTailOnlyRegression(t *testing.T) {
	fullRunOnly(t)
	gateNotActions(t)
	const suite = "testdata/gate/tail.hcl"
	dir := t.TempDir()
	base := (&tailServer{ttft: 30 * time.Millisecond}).start(t)
	baseline := dir + "/baseline.json"
	if code, stdout, stderr := gateCLI(t, "run", suite, "--target", base, "-o", baseline); code != exitPass {
		t.Fatalf("recording the baseline: exit %d\n%s\n%s", code, stdout, stderr)
	}

	same := (&tailServer{ttft: 30 * time.Millisecond}).start(t)
	code, stdout, stderr := gateCLI(t, "gate", suite, "--target", same, "--baseline", baseline, "-o", dir+"/same.json", "--rerun=false")
	if code != exitPass {
		t.Errorf("the unchanged server fails the gate: exit %d\n%s\n%s", code, stdout, stderr)
	}

	tail := (&tailServer{ttft: 30 * time.Millisecond, slowTTFT: 300 * time.Millisecond, slowEvery: 10}).start(t)
	code, stdout, stderr = gateCLI(t, "gate", suite, "--target", tail, "--baseline", baseline, "-o", dir+"/tail.json", "--wide") // the evidence
	if code != exitGate {
		t.Fatalf("a tail-only regression passes the gate: exit %d, want %d\n%s\n%s", code, exitGate, stdout, stderr)
	}
	var p95, median string
	for _, line := range strings.Split(stdout, "\n") {
		switch f := strings.Fields(line); {
		case len(f) > 0 && f[0] == "ttft.p95":
			p95 = line
		case len(f) > 0 && f[0] == "ttft.median":
			median = line
		}
	}
	if !strings.Contains(p95, "regression") || !strings.Contains(p95, "maritz-jarrett") {
		t.Errorf("ttft.p95 row %q: want a regression judged by the quantile difference\n%s", p95, stdout)
	}
	if strings.Contains(median, "regression") {
		t.Errorf("ttft.median row %q: a tail-only change must leave the median alone\n%s", median, stdout)
	}
}
