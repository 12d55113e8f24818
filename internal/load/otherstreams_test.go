package load

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
)

// quirkStream is a completions server whose streams are not vLLM's, with
// known timing: each answer of max_tokens tokens, one a chunk, the first
// ttft after the request arrived and each later one itl after the one
// before (on a schedule kept from the arrival), and the final usage chunk
// with the true counts. zeroUsage puts Ollama's usage of zeros on every
// content chunk; stopFirst ends every answer at its first token with no
// text, as a stop sequence matched at once does (vLLM: empty text,
// finish_reason "stop", one completion token). It keeps the gaps it really
// left between its content writes: the truth ITL is checked against.
type quirkStream struct {
	ttft, itl time.Duration
	zeroUsage bool
	stopFirst bool

	mu   sync.Mutex
	gaps []float64 // ms between successive content writes, all requests
}

func (s *quirkStream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	if r.URL.Path != "/v1/completions" {
		http.NotFound(w, r)
		return
	}
	var req struct {
		MaxTokens int   `json:"max_tokens"`
		Prompt    []int `json:"prompt"`
	}
	json.NewDecoder(r.Body).Decode(&req)
	w.Header().Set("Content-Type", "text/event-stream")
	fl := w.(http.Flusher)
	in := len(req.Prompt)
	usage := ""
	if s.zeroUsage {
		usage = `,"usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0}`
	}
	out := req.MaxTokens
	var gaps []float64
	var last time.Time
	if s.stopFirst {
		out = 1
		time.Sleep(time.Until(start.Add(s.ttft)))
		fmt.Fprintf(w, "data: {\"id\":\"c\",\"object\":\"text_completion\",\"choices\":[{\"index\":0,\"text\":\"\",\"finish_reason\":\"stop\",\"stop_reason\":\"\\n\"}]%s}\n\n", usage)
		fl.Flush()
	} else {
		for i := range out {
			time.Sleep(time.Until(start.Add(s.ttft + time.Duration(i)*s.itl)))
			finish := "null"
			if i == out-1 {
				finish = `"length"`
			}
			fmt.Fprintf(w, "data: {\"id\":\"c\",\"object\":\"text_completion\",\"choices\":[{\"index\":0,\"text\":\" w\",\"finish_reason\":%s}]%s}\n\n", finish, usage)
			fl.Flush()
			now := time.Now()
			if i > 0 {
				gaps = append(gaps, float64(now.Sub(last))/1e6)
			}
			last = now
		}
	}
	fmt.Fprintf(w, "data: {\"id\":\"c\",\"object\":\"text_completion\",\"choices\":[],\"usage\":{\"prompt_tokens\":%d,\"completion_tokens\":%d,\"total_tokens\":%d}}\n\ndata: [DONE]\n\n", in, out, in+out)
	fl.Flush()
	if r.Header.Get(CalibrationHeader) == "" {
		s.mu.Lock()
		s.gaps = append(s.gaps, gaps...)
		s.mu.Unlock()
	}
}

func (s *quirkStream) truth() []float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]float64(nil), s.gaps...)
}

// TestZeroedUsageIsNotContinuous runs completions against a server that
// puts a usage of zeros on every chunk (Ollama): per-chunk usage that never
// counts up is not continuous usage stats, so every gap between output
// chunks is an ITL sample, and the ITLs agree with the gaps the server
// really left (median within 2 ms; the rest is loopback and scheduling).
func TestZeroedUsageIsNotContinuous(t *testing.T) {
	const tokens, requests = 16, 12
	s := &quirkStream{ttft: 10 * time.Millisecond, itl: 5 * time.Millisecond, zeroUsage: true}
	srv := httptest.NewServer(s)
	defer srv.Close()
	cfg := Config{Load: runspec.Load{Concurrency: 2, Requests: requests}, BaseURL: srv.URL, Model: "m", RunName: "zeroed"}
	cfg.Workload = runspec.Workload{Kind: runspec.WorkloadRandom, InputTokens: 8, OutputTokens: tokens}
	res, err := Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	a := results.Analyze(res.Records, results.SummarizeOptions{})
	if a.Summary.Requests.Completed != requests {
		t.Fatalf("%d of %d requests completed: %+v", a.Summary.Requests.Completed, requests, a.Requests.Failures)
	}
	if got, want := a.Summary.ITL.N, requests*(tokens-1); got != want {
		t.Fatalf("ITL n = %d, want %d (one gap between each pair of output chunks)", got, want)
	}
	truth := results.ComputeStats(s.truth())
	t.Logf("ITL measured: n %d median %.3f p99 %.3f ms; server's gaps: median %.3f p99 %.3f ms",
		a.Summary.ITL.N, a.Summary.ITL.Median, a.Summary.ITL.P99, truth.Median, truth.P99)
	if d := math.Abs(a.Summary.ITL.Median - truth.Median); d > 2 {
		t.Errorf("ITL median %.3f ms is %.3f ms off the server's %.3f ms", a.Summary.ITL.Median, d, truth.Median)
	}
	if a.Summary.OutputTokens != int64(requests*tokens) {
		t.Errorf("output tokens %d, want %d from the final usage", a.Summary.OutputTokens, requests*tokens)
	}
}

// TestStopAtFirstToken runs completions against a server whose every answer
// hits a stop sequence at its first token: no text, finish_reason "stop".
// Each is a completed request with no TTFT sample (and no TPOT or ITL), and
// the summary counts them.
func TestStopAtFirstToken(t *testing.T) {
	const requests = 10
	s := &quirkStream{ttft: 5 * time.Millisecond, stopFirst: true}
	srv := httptest.NewServer(s)
	defer srv.Close()
	cfg := Config{Load: runspec.Load{Concurrency: 2, Requests: requests}, BaseURL: srv.URL, Model: "m", RunName: "stop"}
	cfg.Workload = runspec.Workload{Kind: runspec.WorkloadRandom, InputTokens: 8, OutputTokens: 8}
	res, err := Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Records {
		if r.Warmup {
			continue
		}
		if !r.OK() || !r.EmptyAnswer || r.TTFT != 0 || r.E2EL < s.ttft {
			t.Errorf("record: ok %v (%s %s), empty %v, TTFT %v, E2EL %v; want a completed empty answer with no TTFT and an E2EL of at least %v",
				r.OK(), r.ErrorKind, r.Error, r.EmptyAnswer, r.TTFT, r.E2EL, s.ttft)
		}
	}
	a := results.Analyze(res.Records, results.SummarizeOptions{})
	sum := a.Summary
	if sum.Requests.Completed != requests || sum.Requests.EmptyAnswers != requests || sum.Requests.Failed != 0 {
		t.Errorf("requests %+v, want %d completed, all empty answers", sum.Requests, requests)
	}
	if sum.TTFT.N != 0 || sum.TPOT.N != 0 || sum.ITL.N != 0 || sum.E2EL.N != requests {
		t.Errorf("samples: TTFT %d, TPOT %d, ITL %d, E2EL %d; want none but E2EL's %d", sum.TTFT.N, sum.TPOT.N, sum.ITL.N, sum.E2EL.N, requests)
	}
}
