package load

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llmgate/llmgate/results"
)

func doOne(t *testing.T, f *fakeServer, timeout time.Duration, maxTokens int) results.Record {
	t.Helper()
	cl, err := newClient(f.URL(), "", 1, timeout, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.close()
	req := bodyMaker{model: "m", ignoreEOS: true}.completion([]int{1, 2, 3}, maxTokens)
	var rec results.Record
	cl.do(context.Background(), req, time.Now(), &rec)
	return rec
}

func TestClientSuccess(t *testing.T) {
	f := newFakeServer(t, func(f *fakeServer) { f.perChunk = 3 })
	rec := doOne(t, f, time.Minute, 10)
	if !rec.OK() {
		t.Fatalf("error: %s (%s)", rec.Error, rec.ErrorKind)
	}
	if rec.OutputTokens != 10 || rec.InputTokens != 3 {
		t.Errorf("tokens in/out = %d/%d, want 3/10", rec.InputTokens, rec.OutputTokens)
	}
	// chunks of 3,3,3,1 tokens after the first: 3+3+1 = 9 gaps... the first
	// chunk's 3 tokens have none, so 10-3 = 7 ITL values
	if len(rec.ITL) != 7 {
		t.Errorf("%d ITL values, want 7", len(rec.ITL))
	}
	if rec.TTFT <= 0 || rec.E2EL < rec.TTFT || rec.Finished < rec.Sent+rec.E2EL {
		t.Errorf("timings out of order: ttft %v e2el %v sent %v finished %v", rec.TTFT, rec.E2EL, rec.Sent, rec.Finished)
	}
	var sum float64
	for _, v := range rec.ITL {
		sum += v
	}
	if want := float64(rec.E2EL-rec.TTFT) / 1e6; sum < want-1e-6 || sum > want+1e-6 {
		t.Errorf("ITLs add to %.6f ms, want e2el-ttft = %.6f", sum, want)
	}
	body := f.seen()[0]
	so, _ := body["stream_options"].(map[string]any)
	if body["stream"] != true || so["include_usage"] != true || so["continuous_usage_stats"] != true {
		t.Errorf("request body lacks streaming options: %v", body)
	}
	if body["ignore_eos"] != true || body["max_tokens"] != 10.0 || body["min_tokens"] != 10.0 {
		t.Errorf("request body lacks exact-length options: %v", body)
	}
}

func TestClientFailures(t *testing.T) {
	tests := []struct {
		name     string
		opt      func(*fakeServer)
		timeout  time.Duration
		wantKind results.ErrorKind
		wantText string
	}{
		// an HTTP error keeps its status and a body excerpt
		{name: "http 500", opt: func(f *fakeServer) {
			f.before = func(w http.ResponseWriter, r *http.Request) bool {
				http.Error(w, `{"error":"model exploded"}`, http.StatusInternalServerError)
				return false
			}
		}, timeout: time.Minute, wantKind: results.ErrorHTTP, wantText: "http 500: {\"error\":\"model exploded\"}"},
		// the server drops the connection mid-stream
		{name: "disconnect", opt: func(f *fakeServer) {
			f.before = func(w http.ResponseWriter, r *http.Request) bool {
				w.Header().Set("Content-Type", "text/event-stream")
				w.Write([]byte("data: {\"choices\":[{\"text\":\"a\"}],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1}}\n\n"))
				w.(http.Flusher).Flush()
				conn, _, err := http.NewResponseController(w).Hijack()
				if err == nil {
					conn.Close()
				}
				return false
			}
		}, timeout: time.Minute, wantKind: results.ErrorDisconnect},
		// the server never answers: the per-request timeout fires
		{name: "timeout", opt: func(f *fakeServer) {
			f.before = func(w http.ResponseWriter, r *http.Request) bool {
				<-r.Context().Done()
				return false
			}
		}, timeout: 50 * time.Millisecond, wantKind: results.ErrorTimeout},
		// a server that ignores include_usage gives no token counts
		{name: "no usage", opt: func(f *fakeServer) { f.noUsage = true }, timeout: time.Minute, wantKind: results.ErrorProtocol, wantText: "no usage"},
		// a broken chunk is a protocol error
		{name: "malformed", opt: func(f *fakeServer) {
			f.before = func(w http.ResponseWriter, r *http.Request) bool {
				w.Write([]byte("data: {\"choices\":[{\"text\"\n\ndata: [DONE]\n\n"))
				return false
			}
		}, timeout: time.Minute, wantKind: results.ErrorProtocol, wantText: "malformed chunk"},
		// an error event inside the stream
		{name: "error event", opt: func(f *fakeServer) {
			f.before = func(w http.ResponseWriter, r *http.Request) bool {
				w.Write([]byte("data: {\"error\":{\"message\":\"boom\"}}\n\ndata: [DONE]\n\n"))
				return false
			}
		}, timeout: time.Minute, wantKind: results.ErrorProtocol, wantText: "boom"},
		// a body that ends in the middle of a chunk is a disconnect, not a malformed chunk
		{name: "cut mid-chunk", opt: func(f *fakeServer) {
			f.before = func(w http.ResponseWriter, r *http.Request) bool {
				part := "data: {\"choices\":[{\"text\":\"a\"}],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1}}\n\ndata: {\"choices\":[{\"te"
				w.Header().Set("Content-Length", strconv.Itoa(len(part)))
				w.Write([]byte(part))
				return false
			}
		}, timeout: time.Minute, wantKind: results.ErrorDisconnect, wantText: "unexpected EOF"},
		// vLLM before 0.10.1 sends a flat error object in the stream
		{name: "flat error event", opt: func(f *fakeServer) {
			f.before = func(w http.ResponseWriter, r *http.Request) bool {
				w.Write([]byte("data: {\"object\":\"error\",\"message\":\"kaput\",\"type\":\"InternalServerError\",\"param\":null,\"code\":500}\n\ndata: [DONE]\n\n"))
				return false
			}
		}, timeout: time.Minute, wantKind: results.ErrorProtocol, wantText: "kaput"},
		// a 200 with a JSON body (the server ignored stream=true) says so
		{name: "json answer", opt: func(f *fakeServer) {
			f.before = func(w http.ResponseWriter, r *http.Request) bool {
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(`{"choices":[{"text":"whole answer"}]}`))
				return false
			}
		}, timeout: time.Minute, wantKind: results.ErrorProtocol, wantText: "not an event stream"},
		// a stream that ends without [DONE]
		{name: "no done", opt: func(f *fakeServer) {
			f.before = func(w http.ResponseWriter, r *http.Request) bool {
				w.Write([]byte("data: {\"choices\":[{\"text\":\"a\"}],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1}}\n\n"))
				return false
			}
		}, timeout: time.Minute, wantKind: results.ErrorDisconnect, wantText: "before [DONE]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeServer(t, tt.opt)
			rec := doOne(t, f, tt.timeout, 4)
			if rec.OK() {
				t.Fatal("request succeeded, want a failure")
			}
			if rec.ErrorKind != tt.wantKind || !strings.Contains(rec.Error, tt.wantText) {
				t.Errorf("error = %q (%s), want kind %s containing %q", rec.Error, rec.ErrorKind, tt.wantKind, tt.wantText)
			}
			if rec.Finished < rec.Sent {
				t.Errorf("finished %v before sent %v", rec.Finished, rec.Sent)
			}
		})
	}
}

func TestNewClientRejectsBadURL(t *testing.T) {
	for _, u := range []string{"", "localhost:8000", "ftp://x", "http://"} {
		if _, err := newClient(u, "", 1, time.Second, 0); err == nil {
			t.Errorf("newClient(%q) accepted", u)
		}
	}
}
