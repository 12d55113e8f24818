package load

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmgate/llmgate/internal/trace"
	"github.com/llmgate/llmgate/runspec"
)

// readTrace parses a trace for a test.
func readTrace(t *testing.T, format, text string) *trace.Trace {
	t.Helper()
	tr, err := trace.Read(strings.NewReader(text), format)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// traceRun replays tr against a fake server that records what it gets,
// one request in flight at a time (so the server sees them in send
// order), and returns the records and the bodies.
func traceRun(t *testing.T, tr *trace.Trace, l runspec.Load, name string) (*Result, []map[string]any) {
	t.Helper()
	f := newFakeServer(t)
	l.Workload.Kind = runspec.WorkloadTrace
	if l.Concurrency == 0 {
		l.Concurrency = 1
	}
	cfg := Config{Load: l, BaseURL: f.URL(), Model: "m", RunName: name, Trace: tr}
	res, err := Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res, f.seen()
}

func promptIDs(t *testing.T, body map[string]any) []int {
	t.Helper()
	p, ok := body["prompt"].([]any)
	if !ok {
		t.Fatalf("prompt %T, want token ids", body["prompt"])
	}
	ids := make([]int, len(p))
	for i, v := range p {
		ids[i] = int(v.(float64))
	}
	return ids
}

// blocks of 4 tokens: rows 1, 2 and 4 start with blocks 1, 2, 3; row 3
// shares nothing; row 5 has its blocks cover only part of its prompt
const fiveRows = `{"timestamp": 0, "input_length": 16, "output_length": 3, "hash_ids": [1, 2, 3, 4]}
{"timestamp": 400, "input_length": 14, "output_length": 5, "hash_ids": [1, 2, 3, 5]}
{"timestamp": 1000, "input_length": 9, "output_length": 2, "hash_ids": [6, 7, 8]}
{"timestamp": 1000, "input_length": 16, "output_length": 4, "hash_ids": [1, 2, 3, 9]}
{"timestamp": 3000, "input_length": 11, "output_length": 1, "hash_ids": [10]}
`

// TestTraceReplay: every row goes out as one request with exactly its
// lengths, planned at its offset (scaled), its record naming its row; rows
// that share a hash id share that block's tokens and nothing else.
func TestTraceReplay(t *testing.T) {
	tr := readTrace(t, trace.FormatMooncake, fiveRows)
	l := runspec.Load{Requests: 5, Seed: 3, Workload: runspec.Workload{BlockSize: 4, TimeScale: 20}}
	res, bodies := traceRun(t, tr, l, "replay")
	if len(res.Records) != 5 || len(bodies) != 5 {
		t.Fatalf("%d records, %d bodies, want 5", len(res.Records), len(bodies))
	}
	first := res.Records[0].Scheduled
	for i, rec := range res.Records {
		row := tr.Rows[i]
		if rec.TraceRow != row.Line {
			t.Errorf("request %d: trace row %d, want %d", i, rec.TraceRow, row.Line)
		}
		if want := row.At / 20; rec.Scheduled-first != want {
			t.Errorf("request %d: planned %v after the first, want the trace's %v / 20 = %v", i, rec.Scheduled-first, row.At, want)
		}
		if rec.Sent < rec.Scheduled {
			t.Errorf("request %d: sent at %v, before its plan %v", i, rec.Sent, rec.Scheduled)
		}
		if !rec.OK() || rec.OutputTokens != row.Output || rec.RequestedInputTokens != row.Input || rec.RequestedOutputTokens != row.Output {
			t.Errorf("request %d: %+v, want %d in / %d out", i, rec, row.Input, row.Output)
		}
		b := bodies[i]
		if ids := promptIDs(t, b); len(ids) != row.Input {
			t.Errorf("request %d: prompt of %d tokens, want %d", i, len(ids), row.Input)
		}
		if b["max_tokens"].(float64) != float64(row.Output) || b["min_tokens"].(float64) != float64(row.Output) || b["ignore_eos"] != true {
			t.Errorf("request %d: max_tokens %v min_tokens %v ignore_eos %v, want exactly %d", i, b["max_tokens"], b["min_tokens"], b["ignore_eos"], row.Output)
		}
	}
	p := make([][]int, 5)
	for i := range p {
		p[i] = promptIDs(t, bodies[i])
	}
	if !slices.Equal(p[0][:12], p[1][:12]) || !slices.Equal(p[0][:12], p[3][:12]) {
		t.Errorf("rows 1, 2 and 4 share blocks 1-3 but their first 12 tokens differ")
	}
	if slices.Equal(p[0][12:14], p[1][12:14]) || slices.Equal(p[0][12:16], p[3][12:16]) {
		t.Errorf("rows 1, 2 and 4 have their own fourth block but share it")
	}
	// nothing else is shared: no 4-token block of one prompt is in another
	// unless their hash ids say so
	blocks := map[string]string{}
	for i := range p {
		ids := tr.Rows[i].Hashes
		for j := 0; j*4 < len(p[i]); j++ {
			blk := fmt.Sprint(p[i][j*4 : min(j*4+4, len(p[i]))])
			id := "own"
			if j < len(ids) {
				id = fmt.Sprint(ids[j])
			}
			key := fmt.Sprintf("row %d block %d (id %s)", i+1, j+1, id)
			if prev, ok := blocks[blk]; ok && (id == "own" || !strings.HasSuffix(prev, "(id "+id+")")) {
				t.Errorf("%s repeats %s", key, prev)
			}
			blocks[blk] = key
		}
	}
}

// TestTraceReplayIdentical: a baseline and a candidate of the same run
// replay identical requests; another run's differ.
func TestTraceReplayIdentical(t *testing.T) {
	tr := readTrace(t, trace.FormatMooncake, fiveRows)
	l := runspec.Load{Requests: 5, Seed: 3, Workload: runspec.Workload{BlockSize: 4, TimeScale: 50}}
	_, a := traceRun(t, tr, l, "replay")
	_, b := traceRun(t, tr, l, "replay")
	_, c := traceRun(t, tr, l, "other")
	for i := range a {
		if !slices.Equal(promptIDs(t, a[i]), promptIDs(t, b[i])) {
			t.Errorf("request %d: the candidate's prompt differs from the baseline's", i)
		}
		if slices.Equal(promptIDs(t, a[i]), promptIDs(t, c[i])) {
			t.Errorf("request %d: another run replays the same prompt", i)
		}
	}
}

// TestTraceWindow: warmup rows go first, the measured rows follow, and the
// run ends at requests, at the end of the trace, or at duration.
func TestTraceWindow(t *testing.T) {
	tr := readTrace(t, trace.FormatMooncake, fiveRows)
	rows := func(res *Result) (warm, measured []int) {
		for _, r := range res.Records {
			if r.Warmup {
				warm = append(warm, r.TraceRow)
			} else {
				measured = append(measured, r.TraceRow)
			}
		}
		return warm, measured
	}
	w := runspec.Workload{BlockSize: 4, TimeScale: 50}
	res, _ := traceRun(t, tr, runspec.Load{Warmup: 1, Requests: 2, Workload: w}, "w")
	if warm, meas := rows(res); !slices.Equal(warm, []int{1}) || !slices.Equal(meas, []int{2, 3}) {
		t.Errorf("warmup %v measured %v, want [1] [2 3]", warm, meas)
	}
	res, _ = traceRun(t, tr, runspec.Load{Requests: 50, Workload: w}, "w")
	if _, meas := rows(res); !slices.Equal(meas, []int{1, 2, 3, 4, 5}) {
		t.Errorf("measured %v, want every row, then the end", meas)
	}
	// from 0.4 s: rows at 0.4, 1, 1 and 3 s; 40 ms at time_scale 50 hold 2 s
	start := w
	start.TraceStart = 400 * time.Millisecond
	res, _ = traceRun(t, tr, runspec.Load{Duration: 40 * time.Millisecond, Workload: start}, "w")
	if _, meas := rows(res); !slices.Equal(meas, []int{2, 3, 4}) {
		t.Errorf("measured %v, want [2 3 4]: the rows within 2 s of the trace from 0.4 s", meas)
	}
}

// TestTraceOwnPrompts: a row of llmgate's format with a prompt sends it to
// /v1/completions as written, one with messages to the chat API.
func TestTraceOwnPrompts(t *testing.T) {
	tr := readTrace(t, trace.FormatJSONL, `{"timestamp": 0, "prompt": "Once upon a time", "output_tokens": 3}
{"timestamp": 10, "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}], "output_tokens": 2}
{"timestamp": 20, "input_tokens": 5, "output_tokens": 1}
`)
	res, bodies := traceRun(t, tr, runspec.Load{Requests: 3, Workload: runspec.Workload{TimeScale: 10}}, "own")
	if len(bodies) != 3 {
		t.Fatalf("%d bodies", len(bodies))
	}
	if bodies[0]["prompt"] != "Once upon a time" || bodies[0]["max_tokens"].(float64) != 3 {
		t.Errorf("row 1 sent %v", bodies[0])
	}
	msgs, _ := bodies[1]["messages"].([]any)
	if len(msgs) != 2 || msgs[0].(map[string]any)["content"] != "Be brief." || msgs[1].(map[string]any)["role"] != "user" {
		t.Errorf("row 2 sent %v", bodies[1])
	}
	if ids := promptIDs(t, bodies[2]); len(ids) != 5 {
		t.Errorf("row 3 sent %d tokens, want 5", len(ids))
	}
	// lengths llmgate did not make are not claimed as requested
	if res.Records[0].RequestedInputTokens != 0 || res.Records[2].RequestedInputTokens != 5 {
		t.Errorf("requested inputs %d, %d; want 0 (the row's own prompt) and 5", res.Records[0].RequestedInputTokens, res.Records[2].RequestedInputTokens)
	}
}

// TestTraceConcurrencyCap: rows due at once wait for a free slot under a
// cap; without one they go out together.
func TestTraceConcurrencyCap(t *testing.T) {
	var sb strings.Builder
	for range 6 {
		sb.WriteString(`{"timestamp": 0, "input_length": 4, "output_length": 2}` + "\n")
	}
	tr := readTrace(t, trace.FormatMooncake, sb.String())
	for _, limit := range []int{0, 2} {
		started := make(chan struct{}, 6)
		release := make(chan struct{})
		f := newFakeServer(t, func(f *fakeServer) {
			f.before = func(w http.ResponseWriter, r *http.Request) bool {
				started <- struct{}{}
				<-release
				return true
			}
		})
		cfg := Config{Load: runspec.Load{Requests: 6, Concurrency: limit, Workload: runspec.Workload{Kind: runspec.WorkloadTrace}}, BaseURL: f.URL(), Model: "m", RunName: "cap", Trace: tr}
		done := make(chan *Result)
		go func() {
			res, err := Run(context.Background(), cfg, nil)
			if err != nil {
				t.Error(err)
			}
			done <- res
		}()
		want := 6
		if limit > 0 {
			want = limit
		}
		for range want {
			<-started // want requests reach the server without any answer
		}
		close(release)
		res := <-done
		if got := int(f.maxInFlight.Load()); got != want {
			t.Errorf("concurrency %d: %d in flight at once, want %d", limit, got, want)
		}
		if len(res.Records) != 6 {
			t.Errorf("concurrency %d: %d records", limit, len(res.Records))
		}
	}
}
