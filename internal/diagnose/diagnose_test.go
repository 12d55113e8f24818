package diagnose

import (
	"strings"
	"testing"

	"github.com/llmgate/llmgate/results"
)

func kinds(hs []Hint) map[Kind]bool {
	out := map[Kind]bool{}
	for _, h := range hs {
		out[h.Kind] = true
		if len(h.Evidence) == 0 || h.What == "" || h.Next == "" {
			panic("hint without evidence or next step: " + string(h.Kind))
		}
	}
	return out
}

// clean is a run no trap fires on.
func clean() results.Run {
	return results.Run{Name: "r", Status: results.StatusOK, Summary: results.Summary{
		TTFT:       results.Stats{N: 500, Mean: 50, P99: 120},
		Server:     &results.ServerMetrics{KVCacheUsageMax: 0.97, PrefixCacheHitRate: new(0.1)},
		Structured: &results.Structured{ValidRate: 1},
		Client:     results.Client{ScheduleLagP99: 2},
	}, ServerSeries: &results.ServerSeries{Waiting: []float64{0, 3, 5, 0, 0}}}
}

func TestRunHints(t *testing.T) {
	if hs := Run(ptr(clean())); len(hs) != 0 {
		t.Fatalf("clean run has hints: %+v", hs)
	}
	for _, c := range []struct {
		kind  Kind
		plant func(*results.Run)
	}{
		{MemoryBound, func(r *results.Run) { r.Summary.Server.Preemptions = 3 }},
		{TTFTTail, func(r *results.Run) { r.Summary.TTFT.P99 = 400 }},
		{ColdPrefixCache, func(r *results.Run) { r.Load = &results.LoadConfig{Workload: "prefix"} }},
		{QueueBound, func(r *results.Run) { r.ServerSeries.Waiting = []float64{2, 3, 5, 4, 1} }},
		// the server's own histograms: waiting took 420 of 600 ms of TTFT
		{QueueBound, func(r *results.Run) {
			r.Summary.TTFT.Mean, r.Summary.TTFT.P99 = 600, 900
			r.Summary.Server.QueueTime = &results.ServerLatency{Requests: 500, Mean: 420}
			r.Summary.Server.PrefillTime = &results.ServerLatency{Requests: 500, Mean: 150}
		}},
		// ...prefill 450 of 600 ms
		{PrefillBound, func(r *results.Run) {
			r.Summary.TTFT.Mean, r.Summary.TTFT.P99 = 600, 900
			r.Summary.Server.QueueTime = &results.ServerLatency{Requests: 500, Mean: 100}
			r.Summary.Server.PrefillTime = &results.ServerLatency{Requests: 500, Mean: 450}
		}},
		{InvalidOutput, func(r *results.Run) { r.Summary.Structured.ValidRate = 0.98 }},
		{Errors, func(r *results.Run) { r.Summary.ErrorRate = 0.01; r.Summary.Requests.Failed = 5 }},
		{ClientLag, func(r *results.Run) { r.Summary.Client.ScheduleLagP99 = 40 }},
	} {
		r := clean()
		c.plant(&r)
		got := kinds(Run(&r))
		if !got[c.kind] || len(got) != 1 {
			t.Errorf("planted %s: hints %v", c.kind, got)
		}
	}
	// A fast first token is prefill by nature: no hint below MinSplitTTFTMs,
	// and none when neither phase takes half of TTFT.
	for _, c := range []struct{ ttft, queue, prefill float64 }{{40, 2, 35}, {600, 250, 250}} {
		r := clean()
		r.Summary.TTFT.Mean = c.ttft
		r.Summary.Server.QueueTime = &results.ServerLatency{Requests: 500, Mean: c.queue}
		r.Summary.Server.PrefillTime = &results.ServerLatency{Requests: 500, Mean: c.prefill}
		if hs := Run(&r); len(hs) != 0 {
			t.Errorf("TTFT %v ms, queue %v, prefill %v: hints %+v, want none", c.ttft, c.queue, c.prefill, hs)
		}
	}
	// The series and the histograms agreeing make one hint with both's evidence.
	r0 := clean()
	r0.ServerSeries.Waiting = []float64{2, 3, 5, 4, 1}
	r0.Summary.TTFT.Mean, r0.Summary.TTFT.P99 = 600, 900
	r0.Summary.Server.QueueTime = &results.ServerLatency{Requests: 500, Mean: 420}
	if hs := Run(&r0); len(hs) != 1 || hs[0].Kind != QueueBound || len(hs[0].Evidence) != 4 {
		t.Errorf("series and histograms queue-bound: %+v, want one hint with four pieces of evidence", hs)
	}
	// A tail of a few ms over a tiny mean is jitter, not queueing.
	r := clean()
	r.Summary.TTFT = results.Stats{N: 500, Mean: 4, P99: 30}
	if hs := Run(&r); len(hs) != 0 {
		t.Errorf("jitter read as a tail: %+v", hs)
	}
}

func TestErrorBursts(t *testing.T) {
	start := make([]int64, 100)
	for i := range start {
		start[i] = int64(i) * 1000
	}
	burst := &results.RequestLog{StartUS: start, Failures: []results.RequestFailure{{Index: 40}, {Index: 41}, {Index: 43}, {Index: 45}}}
	spread := &results.RequestLog{StartUS: start, Failures: []results.RequestFailure{{Index: 1}, {Index: 30}, {Index: 60}, {Index: 95}}}
	for _, c := range []struct {
		log   *results.RequestLog
		burst bool
	}{{burst, true}, {spread, false}} {
		r := clean()
		r.Summary.ErrorRate, r.Requests = 0.04, c.log
		hs := Run(&r)
		if len(hs) != 1 || hs[0].Kind != Errors || (len(hs[0].Evidence) == 3) != c.burst {
			t.Errorf("burst %v: %+v", c.burst, hs)
		}
	}
}

// TestStaleConnectionLosses checks that requests lost before any answer on
// connections that had sat idle are named as the client's stale
// connections, and that the server is blamed only for the other failures,
// a burst of stale losses included.
func TestStaleConnectionLosses(t *testing.T) {
	start := make([]int64, 100)
	for i := range start {
		start[i] = int64(i) * 1000
	}
	stale := func(i int) results.RequestFailure {
		return results.RequestFailure{Index: i, Kind: "disconnect", ConnIdleUS: 1_001_000}
	}
	for _, c := range []struct {
		name     string
		failures []results.RequestFailure
		want     map[Kind]bool
	}{
		{"all stale, in a burst", []results.RequestFailure{stale(40), stale(41), stale(43), stale(45)}, map[Kind]bool{StaleConnection: true}},
		{"stale and a server error", []results.RequestFailure{stale(40), stale(41), {Index: 90, Kind: "http"}}, map[Kind]bool{StaleConnection: true, Errors: true}},
	} {
		r := clean()
		r.Summary.ErrorRate, r.Summary.Requests.Failed = 0.04, len(c.failures)
		r.Requests = &results.RequestLog{StartUS: start, Failures: c.failures}
		hs := Run(&r)
		if got := kinds(hs); len(got) != len(c.want) || !got[StaleConnection] || got[Errors] != c.want[Errors] {
			t.Errorf("%s: hints %v, want %v", c.name, got, c.want)
		}
		for _, h := range hs {
			if h.Kind == Errors && len(h.Evidence) == 3 {
				t.Errorf("%s: the stale losses were read as a burst of server failures: %+v", c.name, h)
			}
			if h.Kind == StaleConnection && (h.Evidence[0].Value != 2 && h.Evidence[0].Value != 4 || h.Evidence[1].Value != 1.001) {
				t.Errorf("%s: evidence %+v", c.name, h.Evidence)
			}
		}
	}
}

func TestSweepHints(t *testing.T) {
	run := func(c string, tput, tpot float64) *results.Run {
		return &results.Run{Name: "s[concurrency=" + c + "]", Status: results.StatusOK, Params: map[string]string{"concurrency": c},
			Summary: results.Summary{Throughput: results.Throughput{OutputTokens: tput}, TPOT: results.Stats{N: 10, P50: tpot}}}
	}
	growing := []*results.Run{run("1", 100, 10), run("2", 190, 11), run("4", 360, 12), run("8", 700, 14)}
	if hs := Sweep(growing); len(hs) != 0 {
		t.Errorf("a sweep that scales has hints: %+v", hs)
	}
	flat := []*results.Run{run("8", 700, 14), run("16", 740, 15), run("4", 360, 12)}
	if got := kinds(Sweep(flat)); !got[Saturated] || got[TPOTGrowth] {
		t.Errorf("flat throughput: %v", got)
	}
	steep := []*results.Run{run("4", 360, 12), run("8", 700, 20)}
	if got := kinds(Sweep(steep)); !got[TPOTGrowth] || got[Saturated] {
		t.Errorf("steep TPOT: %v", got)
	}
}

func TestChanges(t *testing.T) {
	cur := clean()
	cur.Summary.Server.Preemptions = 19
	cur.Summary.Server.KVCacheUsageMax = 0.999
	base := clean()
	base.Summary.Server.KVCacheUsageMax = 0.71
	hs := Run(&cur)
	if len(hs) != 1 {
		t.Fatalf("hints %+v", hs)
	}
	ch := Changes(hs[0], &base)
	if len(ch) != 2 || ch[0] != (Change{"server.kv_cache_usage.max", 0.71, 0.999}) || ch[1] != (Change{"server.preemptions", 0, 19}) {
		t.Errorf("changes = %+v", ch)
	}
}

func ptr[T any](v T) *T { return &v }

// TestInvalidOutputCutOff checks the invalid-output hint says when failing
// answers were cut off at max_tokens (finish_reason "length" in the
// request log), with their count as evidence and output_tokens as the
// first step, and points at what the results file does hold for each
// failing answer: its index and finish_reason, not the answer.
func TestInvalidOutputCutOff(t *testing.T) {
	for _, c := range []struct {
		name     string
		reasons  []string // of the invalid answers; nil: no request log
		wantCut  float64  // 0: no cut-off evidence
		wantNext []string
	}{
		{name: "cut off", reasons: []string{"length", "stop", "length"}, wantCut: 2,
			wantNext: []string{"raise output_tokens", "requests.invalid_structured", "requests.invalid_structured_finish_reason"}},
		{name: "whole but wrong", reasons: []string{"stop", "stop"},
			wantNext: []string{"check the guided-decoding backend", "requests.invalid_structured_finish_reason"}},
		{name: "no request log", wantNext: []string{"check the guided-decoding backend"}},
	} {
		r := clean()
		r.Summary.Structured.ValidRate = 0.9
		if c.reasons != nil {
			r.Requests = &results.RequestLog{StartUS: make([]int64, 30), InvalidStructuredFinish: c.reasons}
			for i := range c.reasons {
				r.Requests.InvalidStructured = append(r.Requests.InvalidStructured, 3*i)
			}
		}
		hs := Run(&r)
		if len(hs) != 1 || hs[0].Kind != InvalidOutput {
			t.Fatalf("%s: hints %+v", c.name, hs)
		}
		h := hs[0]
		var cut float64
		for _, e := range h.Evidence {
			if e.Name == "invalid answers cut off at max_tokens" {
				cut = e.Value
			}
		}
		if cut != c.wantCut || strings.Contains(h.What, "max_tokens") != (c.wantCut > 0) {
			t.Errorf("%s: cut-off evidence %v in %+v, want %v", c.name, cut, h, c.wantCut)
		}
		for _, w := range c.wantNext {
			if !strings.Contains(h.Next, w) {
				t.Errorf("%s: next %q lacks %q", c.name, h.Next, w)
			}
		}
		if strings.Contains(h.Next, "look at the failing answers") {
			t.Errorf("%s: the hint promises answers the results do not hold: %s", c.name, h.Next)
		}
		if c.reasons == nil && strings.Contains(h.Next, "requests.invalid_structured") {
			t.Errorf("%s: the hint points at a request log the run lacks: %s", c.name, h.Next)
		}
	}
}
