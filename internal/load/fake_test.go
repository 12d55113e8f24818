package load

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeServer is a real OpenAI-style streaming server on loopback for tests:
// it answers /v1/completions and /v1/chat/completions with max_tokens
// tokens, perChunk tokens per chunk, with continuous usage, after ttft and
// itl delays (zero by default), and keeps what it saw.
type fakeServer struct {
	t        *testing.T
	srv      *httptest.Server
	ttft     time.Duration
	itl      time.Duration
	perChunk int
	noUsage  bool
	answer   func(body map[string]any) string // text of each answer; nil: "tok" per token
	before   func(w http.ResponseWriter, r *http.Request) bool
	onConn   func(c net.Conn, s http.ConnState)

	inFlight, maxInFlight atomic.Int64
	mu                    sync.Mutex
	bodies                []map[string]any
	// headers are the headers of every request, calibration included
	headers []http.Header
}

func newFakeServer(t *testing.T, opts ...func(*fakeServer)) *fakeServer {
	f := &fakeServer{t: t, perChunk: 1}
	for _, o := range opts {
		o(f)
	}
	f.srv = httptest.NewUnstartedServer(http.HandlerFunc(f.handle))
	f.srv.Config.ConnState = f.onConn
	f.srv.Start()
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeServer) URL() string { return f.srv.URL }

// seen returns the bodies of the run's requests, in arrival order; the
// calibration requests Run sends first are left out.
func (f *fakeServer) seen() []map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]map[string]any(nil), f.bodies...)
}

func (f *fakeServer) handle(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/completions" && r.URL.Path != "/v1/chat/completions" {
		http.NotFound(w, r) // no /tokenize: Run calibrates by usage
		return
	}
	n := f.inFlight.Add(1)
	defer f.inFlight.Add(-1)
	for {
		m := f.maxInFlight.Load()
		if n <= m || f.maxInFlight.CompareAndSwap(m, n) {
			break
		}
	}
	f.mu.Lock()
	f.headers = append(f.headers, r.Header.Clone())
	f.mu.Unlock()
	var body map[string]any
	raw, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(raw, &body); err != nil {
		http.Error(w, "bad json", http.StatusBadRequest)
		return
	}
	if r.Header.Get(CalibrationHeader) == "" {
		f.mu.Lock()
		f.bodies = append(f.bodies, body)
		f.mu.Unlock()
	}
	if f.before != nil && r.Header.Get(CalibrationHeader) == "" && !f.before(w, r) {
		return
	}
	maxTokens := int(body["max_tokens"].(float64))
	chat := r.URL.Path == "/v1/chat/completions"
	prompt := 0
	if p, ok := body["prompt"].([]any); ok {
		prompt = len(p)
	} else if p, ok := body["prompt"].(string); ok {
		prompt = len(strings.Fields(p))
	} else if msgs, ok := body["messages"].([]any); ok {
		for _, m := range msgs {
			prompt += len(strings.Fields(m.(map[string]any)["content"].(string)))
		}
	}
	pieces := make([]string, maxTokens)
	if f.answer != nil {
		// spread the answer over the tokens: first token carries it all
		pieces[0] = f.answer(body)
	} else {
		for i := range pieces {
			pieces[i] = "tok"
		}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fl := w.(http.Flusher)
	if f.ttft > 0 {
		time.Sleep(f.ttft)
	}
	for sent := 0; sent < maxTokens; {
		k := min(f.perChunk, maxTokens-sent)
		text := strings.Join(pieces[sent:sent+k], "")
		sent += k
		usage := ""
		if !f.noUsage {
			usage = fmt.Sprintf(`,"usage":{"prompt_tokens":%d,"total_tokens":%d,"completion_tokens":%d}`, prompt, prompt+sent, sent)
		}
		tq, _ := json.Marshal(text)
		if chat {
			fmt.Fprintf(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":%s},\"finish_reason\":null}]%s}\n\n", tq, usage)
		} else {
			fmt.Fprintf(w, "data: {\"id\":\"c\",\"object\":\"text_completion\",\"choices\":[{\"index\":0,\"text\":%s,\"finish_reason\":null}]%s}\n\n", tq, usage)
		}
		fl.Flush()
		if f.itl > 0 && sent < maxTokens {
			time.Sleep(f.itl)
		}
	}
	if !f.noUsage {
		fmt.Fprintf(w, "data: {\"id\":\"c\",\"choices\":[],\"usage\":{\"prompt_tokens\":%d,\"total_tokens\":%d,\"completion_tokens\":%d}}\n\n", prompt, prompt+maxTokens, maxTokens)
	}
	io.WriteString(w, "data: [DONE]\n\n")
	fl.Flush()
}
