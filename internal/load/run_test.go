package load

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
)

func TestRunClosedLoopNeverExceedsConcurrency(t *testing.T) {
	f := newFakeServer(t, func(f *fakeServer) { f.itl = time.Millisecond })
	cfg := Config{
		Load: runspec.Load{
			Concurrency: 4,
			Requests:    40,
			Warmup:      6,
			Workload:    runspec.Workload{Kind: runspec.WorkloadRandom, InputTokens: 8, OutputTokens: 5},
		},
		BaseURL: f.URL(),
		Model:   "m",
	}
	sink := make(chan results.Record, 100)
	res, err := Run(context.Background(), cfg, sink)
	if err != nil {
		t.Fatal(err)
	}
	close(sink)
	if got := f.maxInFlight.Load(); got > 4 {
		t.Errorf("server saw %d requests at once, concurrency is 4", got)
	}
	if res.MaxInFlight > 4 || res.MaxInFlight < 1 {
		t.Errorf("MaxInFlight = %d", res.MaxInFlight)
	}
	// every user's first request is warmup, and users that finished theirs
	// early may send more while the others finish: at least 6 warmup
	// requests, then exactly 40 measured ones
	warm := 0
	for _, r := range res.Records {
		if r.Warmup {
			warm++
		}
	}
	if warm < 6 || len(res.Records)-warm != 40 {
		t.Fatalf("%d warmup and %d measured records, want at least 6 and exactly 40", warm, len(res.Records)-warm)
	}
	n := 0
	for range sink {
		n++
	}
	if n != len(res.Records) {
		t.Errorf("sink got %d records, want %d", n, len(res.Records))
	}
	for i, r := range res.Records {
		if r.Seq != i {
			t.Fatalf("record %d has seq %d", i, r.Seq)
		}
		if r.Warmup && i >= warm {
			t.Errorf("warmup record at seq %d, after measured ones", i)
		}
		if !r.OK() {
			t.Errorf("seq %d failed: %s", i, r.Error)
		}
		if r.OutputTokens != 5 || r.InputTokens != 8 {
			t.Errorf("seq %d tokens %d/%d", i, r.InputTokens, r.OutputTokens)
		}
	}
	sum := results.Summarize(res.Records, results.SummarizeOptions{})
	if sum.Requests.Completed != 40 || sum.TTFT.N != 40 {
		t.Errorf("summary counts %d completed, %d ttft; warmup must be excluded", sum.Requests.Completed, sum.TTFT.N)
	}
	if sum.OutputTokens != 200 {
		t.Errorf("output tokens %d, want 200", sum.OutputTokens)
	}
	if !res.Start.Before(res.End) {
		t.Error("Start not before End")
	}
}

func TestRunOpenLoopSendsPlannedCount(t *testing.T) {
	f := newFakeServer(t)
	cfg := Config{
		Load: runspec.Load{
			Rate:        200,
			Requests:    30,
			Concurrency: 8,
			Workload:    runspec.Workload{Kind: runspec.WorkloadRandom, InputTokens: 4, OutputTokens: 2},
		},
		BaseURL: f.URL(),
		Model:   "m",
	}
	res, err := Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Records) != 30 {
		t.Fatalf("%d records, want 30", len(res.Records))
	}
	for _, r := range res.Records {
		if r.Sent < r.Scheduled {
			t.Errorf("seq %d sent %v before its plan %v", r.Seq, r.Sent, r.Scheduled)
		}
	}
	// constant gaps: request n planned 5 ms after request n-1
	gap := res.Records[10].Scheduled - res.Records[9].Scheduled
	if gap < 4999*time.Microsecond || gap > 5001*time.Microsecond {
		t.Errorf("planned gap %v, want 5ms", gap)
	}
	if _, h := res.Analyze(cfg, results.SummarizeOptions{}); h.PlannedRate < 199 || h.PlannedRate > 201 {
		t.Errorf("planned rate %.2f, want 200", h.PlannedRate)
	}
	if got := f.maxInFlight.Load(); got > 8 {
		t.Errorf("server saw %d in flight, cap is 8", got)
	}
}

func TestRunGammaFollowsTheSeededSchedule(t *testing.T) {
	f := newFakeServer(t)
	cfg := Config{
		Load:    runspec.Load{Rate: 500, Burstiness: 0.5, Seed: 9, Requests: 20, Warmup: 2, Workload: runspec.Workload{OutputTokens: 1}},
		BaseURL: f.URL(),
		Model:   "m",
	}
	res, err := Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	// one schedule from the first warmup arrival through the measured phase
	want := NewGamma(500, 0.5, 9)
	due0, _ := want.due(0)
	base := res.Records[0].Scheduled
	for i, r := range res.Records {
		due, _ := want.due(uint64(i))
		if got := r.Scheduled - base; got != due-due0 {
			t.Errorf("request %d planned at %v, the seeded gamma schedule says %v", i, got, due-due0)
		}
	}
	if len(res.Records) != 22 || !res.Records[1].Warmup || res.Records[2].Warmup {
		t.Errorf("%d records, want 2 warmup then 20 measured", len(res.Records))
	}
}

func TestRunStopsByDuration(t *testing.T) {
	f := newFakeServer(t)
	cfg := Config{
		Load:    runspec.Load{Rate: 100, Duration: 100 * time.Millisecond, Workload: runspec.Workload{OutputTokens: 1}},
		BaseURL: f.URL(),
		Model:   "m",
	}
	res, err := Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	// due times 0, 10, ..., 90 ms are inside the 100 ms
	if len(res.Records) != 10 {
		t.Errorf("%d records, want 10", len(res.Records))
	}
}

func TestRunUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cfg := Config{Load: runspec.Load{Concurrency: 2, Requests: 2, Workload: runspec.Workload{OutputTokens: 1}}, BaseURL: "http://" + addr, Model: "m"}
	res, err := Run(context.Background(), cfg, nil)
	if !errors.Is(err, ErrUnreachable) {
		t.Errorf("err = %v, want ErrUnreachable", err)
	}
	if res != nil {
		for _, r := range res.Records {
			if r.ErrorKind != results.ErrorDisconnect || !r.Unreached {
				t.Errorf("record %+v, want a disconnect that never reached the server", r)
			}
		}
	}
}

// A server that takes the connection and closes it unanswered was reached:
// its requests are disconnects, not Unreached, and the run is not
// ErrUnreachable (the test once matched the error's words).
func TestRunHungUpIsReached(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				buf := make([]byte, 1)
				c.Read(buf) // the request has begun: hang up without an answer
				c.Close()
			}()
		}
	}()
	cfg := Config{Load: runspec.Load{Concurrency: 2, Requests: 2, Workload: runspec.Workload{OutputTokens: 1}}, BaseURL: "http://" + l.Addr().String(), Model: "m"}
	res, err := Run(context.Background(), cfg, nil)
	if errors.Is(err, ErrUnreachable) {
		t.Fatalf("err = %v: a server that hung up was reached", err)
	}
	if res == nil || len(res.Records) == 0 {
		t.Fatalf("no records (err %v)", err)
	}
	for _, r := range res.Records {
		if r.ErrorKind != results.ErrorDisconnect || r.Unreached {
			t.Errorf("record kind %q, unreached %v (%s), want a disconnect of a reached server", r.ErrorKind, r.Unreached, r.Error)
		}
	}
}

func TestRunRejectsBadConfig(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		// neither concurrency nor rate
		{name: "no pacing", cfg: Config{Load: runspec.Load{Requests: 1, Workload: runspec.Workload{OutputTokens: 1}}, BaseURL: "http://x"}, want: "concurrency"},
		// no stop condition
		{name: "endless", cfg: Config{Load: runspec.Load{Concurrency: 1, Workload: runspec.Workload{OutputTokens: 1}}, BaseURL: "http://x"}, want: "never ends"},
		// unknown workload
		{name: "kind", cfg: Config{Load: runspec.Load{Concurrency: 1, Requests: 1, Workload: runspec.Workload{Kind: "poetry", OutputTokens: 1}}, BaseURL: "http://x"}, want: "poetry"},
		// bad schema
		{name: "schema", cfg: Config{Load: runspec.Load{Concurrency: 1, Requests: 1, Workload: runspec.Workload{Kind: runspec.WorkloadStructured, OutputTokens: 1, Schema: "{"}}, BaseURL: "http://x"}, want: "schema"},
		// missing dataset
		{name: "dataset", cfg: Config{Load: runspec.Load{Concurrency: 1, Requests: 1, Workload: runspec.Workload{Kind: runspec.WorkloadDataset, DatasetPath: "/nonexistent.json"}}, BaseURL: "http://x"}, want: "nonexistent"},
		// ramp without duration
		{name: "ramp", cfg: Config{Load: runspec.Load{Rate: 3, Requests: 1, Ramp: runspec.Ramp{Kind: runspec.RampLinear}, Workload: runspec.Workload{OutputTokens: 1}}, BaseURL: "http://x"}, want: "ramp"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Run(context.Background(), tt.cfg, nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to mention %q", err, tt.want)
			}
			if errors.Is(err, ErrUnreachable) {
				t.Error("a config error must not read as unreachable")
			}
		})
	}
}

func TestRunStructuredValidatesAnswers(t *testing.T) {
	f := newFakeServer(t, func(f *fakeServer) {
		var n atomic.Int64
		f.answer = func(body map[string]any) string {
			if n.Add(1)%2 == 0 {
				return `{"name":"x"}` // misses required fields
			}
			return `{"name":"x","age":3,"email":"a@b"}`
		}
	})
	cfg := Config{
		Load: runspec.Load{
			Concurrency: 1,
			Requests:    4,
			Workload:    runspec.Workload{Kind: runspec.WorkloadStructured, InputTokens: 4, OutputTokens: 3},
		},
		BaseURL: f.URL(),
		Model:   "m",
	}
	res, err := Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	sum := results.Summarize(res.Records, results.SummarizeOptions{})
	if sum.Structured == nil || sum.Structured.ValidRate != 0.5 {
		t.Errorf("structured = %+v, want valid rate 0.5", sum.Structured)
	}
	body := f.seen()[0]
	rf, _ := body["response_format"].(map[string]any)
	js, _ := rf["json_schema"].(map[string]any)
	if rf["type"] != "json_schema" || js["name"] == nil || js["schema"] == nil {
		t.Errorf("response_format = %v", body["response_format"])
	}
	if body["ignore_eos"] == true {
		t.Error("structured requests must not ignore EOS by default")
	}
}

func TestRunConversationResendsHistory(t *testing.T) {
	f := newFakeServer(t, func(f *fakeServer) {
		f.answer = func(body map[string]any) string { return "answer" }
	})
	cfg := Config{
		Load: runspec.Load{
			Concurrency: 1,
			Requests:    6,
			Workload:    runspec.Workload{Kind: runspec.WorkloadConversation, InputTokens: 3, OutputTokens: 2, Turns: 3},
		},
		BaseURL: f.URL(),
		Model:   "m",
	}
	if _, err := Run(context.Background(), cfg, nil); err != nil {
		t.Fatal(err)
	}
	var lens []int
	for _, b := range f.seen() {
		msgs := b["messages"].([]any)
		lens = append(lens, len(msgs))
		if len(msgs) > 1 {
			if a := msgs[1].(map[string]any); a["role"] != "assistant" || a["content"] != "answer" {
				t.Errorf("second message %v, want the assistant's answer", a)
			}
		}
	}
	want := []int{1, 3, 5, 1, 3, 5} // two sessions of three turns
	if len(lens) != len(want) {
		t.Fatalf("message counts %v, want %v", lens, want)
	}
	for i := range want {
		if lens[i] != want[i] {
			t.Fatalf("message counts %v, want %v", lens, want)
		}
	}
}

func TestRunDatasetAndPrefix(t *testing.T) {
	dir := t.TempDir()
	ds := filepath.Join(dir, "sharegpt.json")
	data := `[{"conversations":[{"from":"human","value":"What is Go?"},{"from":"gpt","value":"A programming language, 40 bytes long.."}]},
	          {"conversations":[{"from":"gpt","value":"orphan"}]}]`
	if err := os.WriteFile(ds, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	f := newFakeServer(t)
	cfg := Config{
		Load:    runspec.Load{Concurrency: 1, Requests: 2, Workload: runspec.Workload{Kind: runspec.WorkloadDataset, DatasetPath: ds}},
		BaseURL: f.URL(),
		Model:   "m",
	}
	if _, err := Run(context.Background(), cfg, nil); err != nil {
		t.Fatal(err)
	}
	b := f.seen()[0]
	if b["max_tokens"] != 10.0 || b["messages"].([]any)[0].(map[string]any)["content"] != "What is Go?" {
		t.Errorf("dataset request %v: want the human turn and max_tokens 10", b)
	}

	f2 := newFakeServer(t)
	cfg = Config{
		Load: runspec.Load{
			Concurrency: 1,
			Requests:    4,
			Workload:    runspec.Workload{Kind: runspec.WorkloadPrefix, PrefixTokens: 16, PrefixGroups: 2, InputTokens: 4, OutputTokens: 2},
		},
		BaseURL: f2.URL(),
		Model:   "m",
	}
	if _, err := Run(context.Background(), cfg, nil); err != nil {
		t.Fatal(err)
	}
	seen := f2.seen()
	prefix := func(i int) string {
		p, _ := json.Marshal(seen[i]["prompt"].([]any)[:16])
		return string(p)
	}
	if len(seen[0]["prompt"].([]any)) != 20 {
		t.Errorf("prompt length %d, want 16+4", len(seen[0]["prompt"].([]any)))
	}
	if prefix(0) != prefix(2) || prefix(1) != prefix(3) || prefix(0) == prefix(1) {
		t.Error("requests 0,2 and 1,3 must share their group's prefix, and the groups must differ")
	}
}

func TestRunChatSendsText(t *testing.T) {
	f := newFakeServer(t)
	cfg := Config{
		Load: runspec.Load{
			Concurrency: 1,
			Requests:    1,
			Seed:        3,
			Workload:    runspec.Workload{Kind: runspec.WorkloadRandom, InputTokens: 12, OutputTokens: 2, Chat: true},
		},
		BaseURL: f.URL(),
		Model:   "m",
	}
	res, err := Run(context.Background(), cfg, nil)
	if err != nil || !res.Records[0].OK() {
		t.Fatalf("err %v, record %+v", err, res.Records)
	}
	msg := f.seen()[0]["messages"].([]any)[0].(map[string]any)["content"].(string)
	if n := len(strings.Fields(msg)); n != 12 {
		t.Errorf("chat prompt has %d words, want 12", n)
	}
}

func TestRunFailuresAreRecordsNotErrors(t *testing.T) {
	f := newFakeServer(t, func(f *fakeServer) {
		f.before = func(w http.ResponseWriter, r *http.Request) bool {
			http.Error(w, "overloaded", http.StatusServiceUnavailable)
			return false
		}
	})
	cfg := Config{Load: runspec.Load{Concurrency: 2, Requests: 5, Workload: runspec.Workload{OutputTokens: 1}}, BaseURL: f.URL(), Model: "m"}
	res, err := Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	sum := results.Summarize(res.Records, results.SummarizeOptions{})
	if sum.Requests.Failed != 5 || sum.ErrorRate != 1 {
		t.Errorf("failed %d, error rate %v; want 5 and 1", sum.Requests.Failed, sum.ErrorRate)
	}
}

func TestRunCanceledStopsEarly(t *testing.T) {
	arrived := make(chan struct{}, 2)
	f := newFakeServer(t, func(f *fakeServer) {
		f.before = func(w http.ResponseWriter, r *http.Request) bool {
			arrived <- struct{}{}
			<-r.Context().Done()
			return false
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	cfg := Config{Load: runspec.Load{Concurrency: 2, Requests: 1000, Workload: runspec.Workload{OutputTokens: 1}}, BaseURL: f.URL(), Model: "m"}
	done := make(chan *Result)
	go func() {
		res, _ := Run(ctx, cfg, nil)
		done <- res
	}()
	<-arrived
	<-arrived
	cancel()
	res := <-done
	if len(res.Records) != 2 || res.Records[0].ErrorKind != results.ErrorCanceled {
		t.Errorf("records %+v, want 2 canceled", res.Records)
	}
}

func TestHealthFlagsProblems(t *testing.T) {
	ms := time.Millisecond
	mk := func(sched, sent, fin time.Duration) results.Record {
		return results.Record{Scheduled: sched, Sent: sent, Finished: fin}
	}
	tests := []struct {
		name string
		cfg  Config
		recs []results.Record
		max  int
		want string
	}{
		// sends 100 ms late against a 10 req/s plan
		{name: "lag", cfg: Config{Load: runspec.Load{Rate: 10}}, recs: []results.Record{mk(0, 100*ms, 200*ms), mk(100*ms, 200*ms, 300*ms), mk(200*ms, 300*ms, 400*ms)}, want: "schedule lag"},
		// planned 10/s, sent at 5/s
		{name: "rate", cfg: Config{Load: runspec.Load{Rate: 10}}, recs: []results.Record{mk(0, 0, ms), mk(100*ms, 200*ms, 201*ms), mk(200*ms, 400*ms, 401*ms)}, want: "achieved rate"},
		// a closed loop whose users sent 210 ms after their previous request ended
		{name: "closed-loop lag", cfg: Config{Load: runspec.Load{Concurrency: 2}}, recs: func() []results.Record {
			var rs []results.Record
			for i := range MinRequestsForClosedLoopLag {
				at := time.Duration(i) * 300 * ms
				rs = append(rs, mk(at, at+210*ms, at+300*ms))
			}
			return rs
		}(), max: 2, want: "schedule lag p99 210.0 ms"},
		// more in flight than allowed
		{name: "over", cfg: Config{Load: runspec.Load{Concurrency: 2}}, recs: []results.Record{mk(0, 0, ms)}, max: 3, want: "above the configured concurrency"},
		// closed loop of 4 that kept only one busy
		{name: "idle users", cfg: Config{Load: runspec.Load{Concurrency: 4}}, recs: func() []results.Record {
			var rs []results.Record
			for i := range 10 {
				at := time.Duration(i) * 10 * ms
				rs = append(rs, mk(at, at, at+10*ms))
			}
			return rs
		}(), max: 1, want: "mean in flight"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := (&Result{Records: tt.recs, MaxInFlight: tt.max}).health(tt.cfg)
			if len(h.Problems) == 0 || !strings.Contains(strings.Join(h.Problems, "; "), tt.want) {
				t.Errorf("problems %q, want one about %q", h.Problems, tt.want)
			}
		})
	}
	// a healthy closed loop: 2 users always busy
	var rs []results.Record
	for i := range 10 {
		at := time.Duration(i) * 10 * ms
		rs = append(rs, mk(at, at, at+10*ms), mk(at, at, at+10*ms))
	}
	if h := (&Result{Records: rs, MaxInFlight: 2}).health(Config{Load: runspec.Load{Concurrency: 2}}); len(h.Problems) != 0 || h.MeanInFlight < 1.99 {
		t.Errorf("healthy run flagged: %+v", h)
	}
}

// health is Analyze's verdict alone.
func (res *Result) health(cfg Config) Health {
	_, h := res.Analyze(cfg, results.SummarizeOptions{})
	return h
}

// A run too short for a self-check says so instead of passing silently.
func TestHealthRecordsUncheckedShortRuns(t *testing.T) {
	ms := time.Millisecond
	var rs []results.Record
	for i := range 8 {
		at := time.Duration(i) * ms
		rs = append(rs, results.Record{Scheduled: at, Sent: at, Finished: at + 10*ms})
	}
	h := (&Result{Records: rs, MaxInFlight: 8}).health(Config{Load: runspec.Load{Concurrency: 16}})
	if len(h.Problems) != 0 || len(h.Unchecked) != 2 || !strings.Contains(h.Unchecked[1], "mean in flight (Little's law): not checked: 8 measured requests, at most 2 × the concurrency 16") ||
		!strings.Contains(h.Unchecked[0], "schedule lag: not checked: 8 measured requests") {
		t.Errorf("problems %q, unchecked %q; want the Little's-law check recorded as not checked", h.Problems, h.Unchecked)
	}
	h = (&Result{Records: rs[:1], MaxInFlight: 1}).health(Config{Load: runspec.Load{Rate: 5}})
	if len(h.Unchecked) != 1 || !strings.Contains(h.Unchecked[0], "1 measured request(s)") {
		t.Errorf("unchecked %q for one request", h.Unchecked)
	}
}
