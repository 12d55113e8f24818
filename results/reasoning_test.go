package results

import (
	"strings"
	"testing"
	"time"
)

// TestAnalyzeReasoning checks TTFO and the reasoning figures Analyze draws
// from records: TTFO over the requests that answered, reasoning and answer
// tokens over every completed request, the unanswered ones counted.
func TestAnalyzeReasoning(t *testing.T) {
	ms := time.Millisecond
	recs := []Record{
		{Seq: 0, Sent: 0, TTFT: 10 * ms, TTFO: 110 * ms, E2EL: 200 * ms, OutputTokens: 30, ReasoningTokens: 20, Reasoning: ReasoningFromUsage},
		{Seq: 1, Sent: ms, TTFT: 20 * ms, TTFO: 220 * ms, E2EL: 300 * ms, OutputTokens: 50, ReasoningTokens: 40, Reasoning: ReasoningFromStream},
		// the answer ran out of tokens in its reasoning: a TTFT, no TTFO
		{Seq: 2, Sent: 2 * ms, TTFT: 30 * ms, E2EL: 400 * ms, OutputTokens: 60, ReasoningTokens: 60, Reasoning: ReasoningFromStream},
		// failed requests count for neither
		{Seq: 3, Sent: 3 * ms, Error: "HTTP 500", ErrorKind: "http"},
	}
	a := Analyze(recs, SummarizeOptions{})
	s := &a.Summary
	if s.TTFT.N != 3 || s.TTFO.N != 2 || s.TTFO.Mean != 165 || s.TTFO.Max != 220 {
		t.Errorf("TTFT n %d; TTFO n %d, mean %v, max %v; want 3; 2, 165, 220", s.TTFT.N, s.TTFO.N, s.TTFO.Mean, s.TTFO.Max)
	}
	if got := a.Samples.TTFO; len(got) != 2 || got[0] != 110 || got[1] != 220 {
		t.Errorf("TTFO samples %v, want [110 220]", got)
	}
	r := s.Reasoning
	if r == nil {
		t.Fatal("no reasoning summary")
	}
	if r.Requests != 3 || r.Counted != 2 || r.Unanswered != 1 {
		t.Errorf("reasoning requests %d, counted %d, unanswered %d; want 3, 2, 1", r.Requests, r.Counted, r.Unanswered)
	}
	if r.Tokens.Mean != 40 || r.Tokens.Max != 60 || r.AnswerTokens.Mean != 20.0/3 || r.AnswerTokens.Max != 10 {
		t.Errorf("reasoning tokens mean %v max %v, answer tokens mean %v max %v; want 40, 60, 6.67, 10",
			r.Tokens.Mean, r.Tokens.Max, r.AnswerTokens.Mean, r.AnswerTokens.Max)
	}
	vals := s.Values()
	for name, want := range map[string]float64{"ttfo.p50": 165, "reasoning_tokens.median": 40, "answer_tokens.max": 10, "ttft.max": 30} {
		if got, ok := vals[name]; !ok || got != want {
			t.Errorf("%s = %v (present %v), want %v", name, got, ok, want)
		}
	}
	f := &File{Runs: []Run{{Name: "r", Status: StatusOK, Summary: *s, Samples: a.Samples}}}
	if err := f.Check(); err != nil {
		t.Errorf("Check: %v", err)
	}
}

// TestNoReasoning checks that a model that does not reason has TTFO equal
// to TTFT and no reasoning metrics, which say why they are missing.
func TestNoReasoning(t *testing.T) {
	ms := time.Millisecond
	recs := []Record{{TTFT: 10 * ms, TTFO: 10 * ms, E2EL: 50 * ms, OutputTokens: 5}, {Seq: 1, TTFT: 12 * ms, TTFO: 12 * ms, E2EL: 40 * ms, OutputTokens: 4}}
	s := Analyze(recs, SummarizeOptions{}).Summary
	if s.TTFO != s.TTFT || s.Reasoning != nil {
		t.Errorf("TTFO %+v, TTFT %+v, reasoning %+v; want TTFO = TTFT and no reasoning", s.TTFO, s.TTFT, s.Reasoning)
	}
	m, _ := LookupMetric("reasoning_tokens.p95")
	if _, ok := m.Value(&s); ok || m.WhyNotMeasured(&s) == "" {
		t.Errorf("reasoning_tokens.p95 present %v, why not %q: want missing, with a reason", ok, m.WhyNotMeasured(&s))
	}
	if m.Unit != Count || m.Family != ReasoningTokens || m.Stat != StatQuantile || m.Quantile != 0.95 {
		t.Errorf("reasoning_tokens.p95 is %+v", m)
	}
	ttfo, _ := LookupMetric("ttfo.p99")
	if !ttfo.HasSamples() || ttfo.Unit != Milliseconds || ttfo.Better != LowerIsBetter || !ttfo.Family.Latency() {
		t.Errorf("ttfo.p99 is %+v", ttfo)
	}
}

// A results file with a negative reasoning-token count is not a measurement.
func TestCheckRejectsNegativeReasoning(t *testing.T) {
	f := &File{Runs: []Run{{Name: "r", Status: StatusOK, Summary: Summary{Reasoning: &Reasoning{Requests: 1, Tokens: Stats{N: 1, Mean: -3}}}}}}
	if err := f.Check(); err == nil {
		t.Error("Check accepted reasoning tokens of -3")
	}
}

// TestRequestLogReasoning keeps each request's TTFO and reasoning tokens
// in the request log when any request reasoned, zeros for those before
// the first that did, and no such columns for a run that did not reason;
// two blocks' logs join.
func TestRequestLogReasoning(t *testing.T) {
	ms := time.Millisecond
	recs := []Record{
		{Seq: 0, TTFT: 10 * ms, E2EL: 50 * ms, OutputTokens: 10},
		{Seq: 1, Sent: ms, TTFT: 10 * ms, TTFO: 110 * ms, E2EL: 200 * ms, OutputTokens: 30, ReasoningTokens: 20, Reasoning: ReasoningFromUsage},
		{Seq: 2, Sent: 2 * ms, TTFT: 30 * ms, E2EL: 400 * ms, OutputTokens: 60, ReasoningTokens: 60, Reasoning: ReasoningFromStream},
	}
	l := Analyze(recs, SummarizeOptions{}).Requests
	if got, want := l.TTFOUS, []int64{0, 110000, 0}; len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("ttfo_us %v, want %v", got, want)
	}
	if got := l.ReasoningTokens; len(got) != 3 || got[0] != 0 || got[1] != 20 || got[2] != 60 {
		t.Errorf("reasoning_tokens %v, want [0 20 60]", got)
	}
	if plain := Analyze(recs[:1], SummarizeOptions{}).Requests; plain.TTFOUS != nil || plain.ReasoningTokens != nil {
		t.Errorf("a log without reasoning has the columns: %v %v", plain.TTFOUS, plain.ReasoningTokens)
	}
	j := JoinRequestLogs([]*RequestLog{Analyze(recs[:1], SummarizeOptions{}).Requests, l}, []int64{0, 1000})
	if len(j.TTFOUS) != 4 || j.TTFOUS[2] != 110000 || len(j.ReasoningTokens) != 4 {
		t.Errorf("joined %v %v", j.TTFOUS, j.ReasoningTokens)
	}
	bad := *l
	bad.TTFOUS = bad.TTFOUS[:2]
	if err := (&File{Runs: []Run{{Name: "r", Status: StatusOK, Requests: &bad}}}).Check(); err == nil || !strings.Contains(err.Error(), "requests.ttfo_us has 2 entries") {
		t.Errorf("check of a short column: %v", err)
	}
}
