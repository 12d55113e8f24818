package load

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
)

// earlyRoleServer streams chat completions the way some gateways and
// simulators do: the role chunk as soon as the request is accepted, an
// empty-content chunk a few ms later, the first generated output (reasoning
// content) after ttft, then one content token every itl. It records, for
// each request, when it actually wrote the first output chunk and the last
// token, measured from when its handler began: the truth the client's
// figures are checked against.
type earlyRoleServer struct {
	ttft, itl time.Duration
	tokens    int

	mu    sync.Mutex
	truth []earlyRoleTruth
}

type earlyRoleTruth struct {
	ttft, tpot time.Duration
}

func (s *earlyRoleServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	if r.URL.Path != "/v1/chat/completions" {
		http.NotFound(w, r)
		return
	}
	var req struct {
		MaxTokens int `json:"max_tokens"`
	}
	json.NewDecoder(r.Body).Decode(&req)
	w.Header().Set("Content-Type", "text/event-stream")
	fl := w.(http.Flusher)
	chunk := func(delta string) {
		fmt.Fprintf(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":%s,\"finish_reason\":null}]}\n\n", delta)
		fl.Flush()
	}
	chunk(`{"role":"assistant","content":""}`)
	time.Sleep(5 * time.Millisecond)
	chunk(`{"content":""}`)
	time.Sleep(time.Until(start.Add(s.ttft)))
	chunk(`{"reasoning_content":"Thinking"}`)
	first := time.Now()
	last := first
	for i := 1; i < s.tokens; i++ {
		time.Sleep(time.Until(last.Add(s.itl)))
		chunk(`{"content":" tok"}`)
		last = time.Now()
	}
	fmt.Fprintf(w, "data: {\"id\":\"c\",\"choices\":[],\"usage\":{\"prompt_tokens\":4,\"total_tokens\":%d,\"completion_tokens\":%d}}\n\ndata: [DONE]\n\n", 4+s.tokens, s.tokens)
	fl.Flush()
	if r.Header.Get(CalibrationHeader) != "" {
		return // a calibration request: not part of the run
	}
	s.mu.Lock()
	s.truth = append(s.truth, earlyRoleTruth{ttft: first.Sub(start), tpot: last.Sub(first) / time.Duration(s.tokens-1)})
	s.mu.Unlock()
}

// earlyRoleErrors runs n chat requests, one at a time, against an
// earlyRoleServer with a true TTFT of 50 ms and ITL of 10 ms, and returns
// each request's TTFT and TPOT error against the server's truth, in ms.
//
// The truth is what the server measured from its handler's start to its own
// writes, so the client's error is the loopback latency of the request plus
// that of the chunk.
func earlyRoleErrors(tb testing.TB, n int) (ttftErr, tpotErr []float64) {
	tb.Helper()
	s := &earlyRoleServer{ttft: 50 * time.Millisecond, itl: 10 * time.Millisecond, tokens: 8}
	srv := httptest.NewServer(s)
	defer srv.Close()
	cfg := Config{
		Load: runspec.Load{
			Concurrency: 1,
			Requests:    n,
			Workload:    runspec.Workload{Kind: runspec.WorkloadRandom, Chat: true, InputTokens: 4, OutputTokens: 8},
		},
		BaseURL: srv.URL,
		Model:   "m",
	}
	res, err := Run(context.Background(), cfg, nil)
	if err != nil {
		tb.Fatal(err)
	}
	s.mu.Lock()
	truth := append([]earlyRoleTruth(nil), s.truth...)
	s.mu.Unlock()
	if len(truth) != len(res.Records) {
		tb.Fatalf("server saw %d requests, client recorded %d", len(truth), len(res.Records))
	}
	for i, r := range res.Records {
		if !r.OK() {
			tb.Fatalf("request %d failed: %s", r.Seq, r.Error)
		}
		if r.OutputTokens != s.tokens {
			tb.Fatalf("request %d: %d output tokens, want %d", r.Seq, r.OutputTokens, s.tokens)
		}
		tpot := (r.E2EL - r.TTFT) / time.Duration(r.OutputTokens-1)
		ttftErr = append(ttftErr, float64(r.TTFT-truth[i].ttft)/1e6)
		tpotErr = append(tpotErr, float64(tpot-truth[i].tpot)/1e6)
	}
	return ttftErr, tpotErr
}

// TestFirstTokenAfterEarlyRoleChunk checks TTFT and TPOT against a server
// with an early role chunk, an empty-content chunk and a reasoning first
// token: TTFT must be the reasoning chunk's arrival (not the role chunk's,
// about 50 ms early), and TPOT the true gap between tokens (not inflated by
// the time the role chunk stole from TTFT).
//
// A client that timed the role chunk would be about 50 ms early on every
// request, so no request may be early by more than 1 ms; how late one is
// depends on how busy the machine is, so lateness is only held to 25 ms. The
// accuracy itself (median error, target 2 ms) is a figure of
// BenchmarkFirstTokenAfterEarlyRoleChunk.
func TestFirstTokenAfterEarlyRoleChunk(t *testing.T) {
	ttftErr, tpotErr := earlyRoleErrors(t, 10)
	for i := range ttftErr {
		if te := ttftErr[i]; te < -1 || te > 25 {
			t.Errorf("request %d: TTFT off the truth by %.3f ms, want -1 to 25", i, te)
		}
		if pe := tpotErr[i]; pe < -5 || pe > 5 {
			t.Errorf("request %d: TPOT off the truth by %.3f ms, want -5 to 5", i, pe)
		}
	}
}

// BenchmarkFirstTokenAfterEarlyRoleChunk reports the client's TTFT and TPOT
// error against the early-role server's truth (median and max over 20
// sequential requests, in ms).
func BenchmarkFirstTokenAfterEarlyRoleChunk(b *testing.B) {
	for b.Loop() {
		ttftErr, tpotErr := earlyRoleErrors(b, 20)
		sort.Float64s(ttftErr)
		sort.Float64s(tpotErr)
		b.ReportMetric(ttftErr[len(ttftErr)/2], "ttft_p50_err_ms")
		b.ReportMetric(ttftErr[len(ttftErr)-1], "ttft_max_err_ms")
		b.ReportMetric(tpotErr[len(tpotErr)/2], "tpot_p50_err_ms")
	}
}

// TestUsageContradictingStreamIsFlagged checks that a final usage of one
// completion token after eight streamed tokens fails the request with the
// reason, rather than turning into a TPOT of 0.
func TestUsageContradictingStreamIsFlagged(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		for range 8 {
			io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"text\":\" tok\"}]}\n\n")
		}
		io.WriteString(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":4,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	cfg := Config{
		Load: runspec.Load{
			Concurrency: 1,
			Requests:    1,
			Workload:    runspec.Workload{Kind: runspec.WorkloadRandom, InputTokens: 4, OutputTokens: 8},
		},
		BaseURL: srv.URL,
		Model:   "m",
	}
	res, err := Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := res.Records[0]
	if want := "usage contradicts the stream: completion_tokens 1 after 8 chunks of generated output"; r.Error != want || r.ErrorKind != results.ErrorProtocol {
		t.Errorf("record error = %q (%s), want %q (%s)", r.Error, r.ErrorKind, want, results.ErrorProtocol)
	}
}
