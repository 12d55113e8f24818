package suite

import (
	"strings"
	"testing"

	"github.com/llmgate/llmgate/internal/plan"
	"github.com/llmgate/llmgate/results"
)

const assertSuite = `scenario "sweep" {
  sweep { concurrency = [4, 32] }
  load {
    concurrency = sweep.concurrency
    requests    = 10
  }
  assert "ttft" {
    condition     = ttft.p95 < 500 || sweep.concurrency > 16
    error_message = "P95 TTFT must stay under 500 ms up to 16 users"
  }
  assert "kv" {
    condition = server.kv_cache_usage.max < 0.95
  }
  assert "errors" {
    condition = error_rate <= 0.01 && throughput.output_tokens >= 100
  }
}`

func TestEvalAsserts(t *testing.T) {
	s := mustLoad(t, assertSuite, Options{})
	low, high := s.Scenarios[0].Runs[0], s.Scenarios[0].Runs[1]
	sum := &results.Summary{
		TTFT:       results.Stats{P95: 612.4},
		Throughput: results.Throughput{OutputTokens: 250},
		ErrorRate:  0.02,
		Server:     &results.ServerMetrics{KVCacheUsageMax: 0.5},
	}

	got := low.EvalAsserts(sum)
	if len(got) != 3 {
		t.Fatalf("got %d results", len(got))
	}
	ttft := got[0]
	if ttft.Passed {
		t.Errorf("ttft.p95 = 612.4 at concurrency 4 passed")
	}
	if ttft.Values["ttft.p95"] != 612.4 || ttft.Values["sweep.concurrency"] != 4 {
		t.Errorf("values seen: %v", ttft.Values)
	}
	if ttft.Condition != "ttft.p95 < 500 || sweep.concurrency > 16" || ttft.Line != 8 || ttft.Column != 21 || !strings.HasSuffix(ttft.File, "suite.hcl") {
		t.Errorf("location/source: %q %s:%d:%d", ttft.Condition, ttft.File, ttft.Line, ttft.Column)
	}
	for _, want := range []string{"P95 TTFT must stay under 500 ms", "suite.hcl:8", "ttft.p95 = 612ms", "sweep.concurrency = 4"} {
		if !strings.Contains(ttft.Message.Raw(), want) {
			t.Errorf("message %q lacks %q", ttft.Message, want)
		}
	}
	if !got[1].Passed || got[1].Values["server.kv_cache_usage.max"] != 0.5 {
		t.Errorf("kv assert: %+v", got[1])
	}
	if got[2].Passed || !strings.Contains(got[2].Message.Raw(), `assert "errors" failed`) || !strings.Contains(got[2].Message.Raw(), "error_rate = 0.02") {
		t.Errorf("errors assert: %+v", got[2])
	}

	// At concurrency 32 the same TTFT passes through the || branch.
	if r := high.EvalAsserts(sum); !r[0].Passed || r[0].Message != "" {
		t.Errorf("concurrency 32: %+v", r[0])
	}
}

func TestEvalAssertsMissingMetric(t *testing.T) {
	s := mustLoad(t, assertSuite, Options{})
	got := s.Scenarios[0].Runs[0].EvalAsserts(&results.Summary{}) // no server metrics
	kv := got[1]
	if kv.Passed {
		t.Fatal("an assert on absent server metrics passed")
	}
	if !strings.Contains(kv.Message.Raw(), "server.kv_cache_usage.max was not measured") || !strings.Contains(kv.Message.Raw(), "/metrics") {
		t.Errorf("message: %q", kv.Message)
	}
	// A condition that does not need the absent metric still decides.
	s2 := mustLoad(t, `scenario "p" {
  sweep { caching = ["on", "off"] }
  load {
    concurrency = 1
    requests    = 1
  }
  assert "hits" {
    condition = sweep.caching == "off" || server.prefix_cache_hit_rate > 0.6
  }
}`, Options{})
	if r := s2.Scenarios[0].Runs[1].EvalAsserts(&results.Summary{}); !r[0].Passed {
		t.Errorf("caching=off without server metrics: %+v", r[0])
	}
	if r := s2.Scenarios[0].Runs[0].EvalAsserts(&results.Summary{}); r[0].Passed || !strings.Contains(r[0].Message.Raw(), "not measured") {
		t.Errorf("caching=on without server metrics: %+v", r[0])
	}
	// A nil summary fails every assert instead of panicking.
	for _, r := range s.Scenarios[0].Runs[0].EvalAsserts(nil) {
		if r.Passed {
			t.Errorf("%s passed on a nil summary", r.Name)
		}
	}
}

// TestEvalAssertsCompiled checks asserts are compiled when the suite
// loads: a copy of a run (as a capacity probe is) judges as its run does,
// with the sweep values read at load, whatever its Params say later; an
// Assert not loaded from a suite fails, saying so.
func TestEvalAssertsCompiled(t *testing.T) {
	s := mustLoad(t, assertSuite, Options{})
	r := *s.Scenarios[0].Runs[1]
	r.Params = nil
	got := r.EvalAsserts(&results.Summary{TTFT: results.Stats{P95: 600}, Throughput: results.Throughput{OutputTokens: 100}})
	if !got[2].Passed {
		t.Errorf("errors assert: %+v", got[2])
	}
	if !got[0].Passed || got[0].Values["sweep.concurrency"] != 32 {
		t.Errorf("sweep.concurrency read at load: %+v", got[0])
	}
	hand := &plan.Assert{Name: "by_hand", Source: "ttft.p95 < 1"}
	if got := hand.Check(&results.Summary{}); got.Passed || !strings.Contains(got.Message.Raw(), "not loaded from a suite") {
		t.Errorf("an assert built by hand: %+v", got)
	}
}

// TestAssertValuesInUnits checks an assert's message gives every value it
// saw in its unit: a metric's own, and a variable compared with a metric
// the metric's. It once read "ttft.p95 = 61.269" with no unit at all.
func TestAssertValuesInUnits(t *testing.T) {
	s := mustLoad(t, `variable "ttft_ms" { default = 50 }
scenario "chat" {
  load {
    concurrency = 4
    requests    = 10
  }
  assert "ttft" {
    condition = ttft.p95 < var.ttft_ms && throughput.output_tokens > 10
  }
}`, Options{})
	got := s.Scenarios[0].Runs[0].EvalAsserts(&results.Summary{TTFT: results.Stats{P95: 61.269}, Throughput: results.Throughput{OutputTokens: 250}})
	a := got[0]
	if a.Passed {
		t.Fatal("ttft.p95 61.269 < 50 passed")
	}
	for _, want := range []string{"ttft.p95 = 61.3ms", "var.ttft_ms = 50.0ms", "throughput.output_tokens = 250/s"} {
		if !strings.Contains(a.Message.Raw(), want) {
			t.Errorf("message %q lacks %q", a.Message, want)
		}
	}
	if a.Units["var.ttft_ms"] != results.Milliseconds || len(a.Units) != 1 {
		t.Errorf("units %v: want var.ttft_ms in ms only (a metric's unit is the metric's)", a.Units)
	}
}

// TestEvalAssertsBudgetPerEvaluation judges one run's asserts, each of which
// builds 30,000 values (10,000 pairs), many times over: every evaluation gets the whole
// budget again (plan.Run.ResetBudget, which the loader sets), so the tenth
// passes as the first did, while two evaluations' worth within one would be
// refused. A Run without ResetBudget spends one budget across evaluations.
func TestEvalAssertsBudgetPerEvaluation(t *testing.T) {
	const src = `scenario "chat" {
  load {
    concurrency = 1
    requests    = 4
  }
  assert "big" {
    condition = length(setproduct(range(100), range(100))) > 0 && error_rate <= 1
  }
}`
	s := mustLoad(t, src, Options{})
	run := s.Scenarios[0].Runs[0]
	if run.ResetBudget == nil {
		t.Fatal("the loader set no ResetBudget")
	}
	sum := &results.Summary{}
	for i := range 10 {
		if got := run.EvalAsserts(sum); len(got) != 1 || !got[0].Passed {
			t.Fatalf("evaluation %d: %+v", i+1, got)
		}
	}
	unbudgeted := *run
	unbudgeted.ResetBudget = nil
	failed := false
	for range 10 {
		if got := unbudgeted.EvalAsserts(sum); !got[0].Passed {
			failed = strings.Contains(got[0].Message.Raw(), "values in all")
			break
		}
	}
	if !failed {
		t.Error("ten evaluations of 30,000 values each on one budget were never refused: the test no longer tells a reset from none")
	}
}
