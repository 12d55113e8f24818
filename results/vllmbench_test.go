package results

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readBench(t *testing.T, name string) *VLLMBench {
	t.Helper()
	fh, err := os.Open(filepath.Join("..", "testdata", "vllmbench", name))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	b, err := ReadVLLMBench(fh)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-6*math.Max(1, math.Abs(b)) }

func TestVLLMBenchSummaryOnly(t *testing.T) {
	f := readBench(t, "summary.json").File("sharegpt")
	r := f.Runs[0]
	if r.Samples != nil {
		t.Error("summary-only import has samples")
	}
	s := r.Summary
	checks := []struct {
		name      string
		got, want float64
	}{
		{"ttft.p99", s.TTFT.P99, 402.7},
		{"ttft.median", s.TTFT.Median, 160.2},
		{"ttft.p50 from median", s.TTFT.P50, 160.2},
		{"e2el.mean", s.E2EL.Mean, 6329.0},
		{"throughput.output_tokens", s.Throughput.OutputTokens, 1211.76},
		{"requests.failed", float64(s.Requests.Failed), 2},
		{"error_rate", s.ErrorRate, 0.01},
	}
	for _, c := range checks {
		if !near(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if f.Environment.Model != "meta-llama/Llama-3.1-8B-Instruct" || r.Params["request_rate"] != "inf" || r.Params["max_concurrency"] != "32" {
		t.Errorf("metadata not carried: env %+v params %v", f.Environment, r.Params)
	}
	// vllm bench writes its local time without a zone: kept as written,
	// not read as UTC
	if im := r.Imported; im == nil || im.From != ImportedVLLMBench || im.Date != "20251014-093012" || im.DateZone != "unknown" {
		t.Errorf("imported %+v, want the date as written and its zone unknown", r.Imported)
	}
	if !r.Started.IsZero() || f.Created.IsZero() {
		t.Errorf("started %v (want zero: its zone is unknown), created %v (want the import's time)", r.Started, f.Created)
	}
}

func TestVLLMBenchDetailed(t *testing.T) {
	b := readBench(t, "detailed.json")
	if !b.Detailed() {
		t.Fatal("detailed file not recognised")
	}
	r := b.File("random").Runs[0]
	// The failed fifth request is left out; seconds become milliseconds.
	if got := r.Samples.TTFT; len(got) != 4 || !near(got[0], 100) || !near(got[3], 170) {
		t.Errorf("ttft samples %v, want [100 110 120 170]", got)
	}
	if got := r.Samples.E2EL; !near(got[0], 160) {
		t.Errorf("e2el sample %v, want 160 = ttft 100 + 3 gaps of 20", got[0])
	}
	if got := r.Samples.TPOT; !near(got[0], 20) {
		t.Errorf("tpot sample %v, want 20", got[0])
	}
	if !near(r.Summary.TTFT.Max, 170) || r.Summary.TTFT.N != 4 {
		t.Errorf("ttft summary %+v not computed from samples", r.Summary.TTFT)
	}
	if r.Params["request_rate"] != "2" || r.Params["burstiness"] != "0.5" {
		t.Errorf("params %v", r.Params)
	}
}

func TestVLLMBenchBadInput(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		// Not JSON at all.
		{name: "garbage", in: "not json", want: "decoding"},
		// JSON, but not a bench result.
		{name: "other json", in: `{"hello": 1}`, want: "no \"completed\" key"},
		// Per-request arrays of different lengths cannot be paired up.
		{name: "ragged", in: `{"completed": 2, "ttfts": [0.1, 0.2], "output_lens": [3]}`, want: "differ in length"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadVLLMBench(strings.NewReader(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// TestVLLMBenchMissingStats checks the p95s a default vllm bench run does
// not save are named, and a file with them names none.
func TestVLLMBenchMissingStats(t *testing.T) {
	got := strings.Join(readBench(t, "summary.json").MissingStats(), ",")
	if want := "ttft.p95,tpot.p95,e2el.p95"; got != want {
		t.Errorf("MissingStats of a p99-only file = %q, want %q", got, want)
	}
	b, err := ReadVLLMBench(strings.NewReader(`{"completed": 1, "p95_ttft_ms": 1, "p95_tpot_ms": 1, "p95_e2el_ms": 1}`))
	if err != nil {
		t.Fatal(err)
	}
	if m := b.MissingStats(); len(m) != 0 {
		t.Errorf("MissingStats of a file with every p95 = %v, want none", m)
	}
}

// TestVLLMBenchUnreportedFamily checks a metric vLLM did not report (e2el is
// left out of --percentile-metrics by default) is not measured, rather
// than a run of zeros an assert such as e2el.p99 < 5000 would pass on.
func TestVLLMBenchUnreportedFamily(t *testing.T) {
	b, err := ReadVLLMBench(strings.NewReader(`{"completed": 10, "mean_ttft_ms": 100, "p99_ttft_ms": 180}`))
	if err != nil {
		t.Fatal(err)
	}
	s := b.File("r").Runs[0].Summary
	e2el, _ := LookupMetric("e2el.p99")
	if v, ok := e2el.Value(&s); ok {
		t.Errorf("e2el.p99 of a file without e2el = %v, want not measured", v)
	}
	ttft, _ := LookupMetric("ttft.p99")
	if v, ok := ttft.Value(&s); !ok || v != 180 {
		t.Errorf("ttft.p99 = %v, %v; want 180", v, ok)
	}
}

// TestVLLMBenchGoodputNull checks that request_goodput: null, which vLLM
// writes unless --goodput is given, is not measured rather than a goodput
// of 0 (a false -100% regression against a baseline that has it).
func TestVLLMBenchGoodputNull(t *testing.T) {
	s := readBench(t, "summary.json").File("r").Runs[0].Summary
	for _, name := range []string{"goodput.requests", "goodput.ratio"} {
		m, _ := LookupMetric(name)
		if v, ok := m.Value(&s); ok {
			t.Errorf("%s of a file with request_goodput null = %v, want not measured", name, v)
		}
	}
	s = readBench(t, "detailed.json").File("r").Runs[0].Summary
	if m, _ := LookupMetric("goodput.requests"); !near(must(m.Value(&s)), 1.0) {
		t.Errorf("goodput.requests of a file with request_goodput 1.0 = %v", must(m.Value(&s)))
	}
}

func must(v float64, ok bool) float64 {
	if !ok {
		return math.NaN()
	}
	return v
}

// TestVLLMBenchKeepsITLs checks the itls of a --save-detailed file reach the
// samples (the ITL histogram) as well as itl.* in the summary.
func TestVLLMBenchKeepsITLs(t *testing.T) {
	r := readBench(t, "detailed.json").File("r").Runs[0]
	if r.Samples.ITL == nil || r.Samples.ITL.Total() != 12 {
		t.Fatalf("ITL histogram %+v, want the 12 gaps of the 4 successful requests", r.Samples.ITL)
	}
	if q := r.Samples.ITL.Quantile(0.5); math.Abs(q-20)/20 > 0.01 {
		t.Errorf("ITL median from the histogram = %v ms, want 20 within 1%%", q)
	}
	if m, _ := LookupMetric("itl.p99"); !near(must(m.Value(&r.Summary)), 20) {
		t.Errorf("itl.p99 = %v, want 20", must(m.Value(&r.Summary)))
	}
}

// TestVLLMBenchRejectsNegatives checks negative counts and latencies are
// refused with the key that holds them.
func TestVLLMBenchRejectsNegatives(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"completed": -3}`, "completed = -3: a count cannot be negative"},
		{`{"completed": 2, "failed": -1}`, "failed = -1"},
		{`{"completed": 2, "mean_ttft_ms": -12.5}`, "mean_ttft_ms = -12.5"},
		{`{"completed": 2, "ttfts": [0.1, -0.2], "output_lens": [3, 3]}`, "ttfts[1] = -0.2"},
		{`{"completed": 1, "ttfts": [0.1], "output_lens": [3], "itls": [[0.01, -0.02]]}`, "itls[0][1] = -0.02"},
		{`{"completed": 1, "ttfts": [0.1], "output_lens": [-3]}`, "output_lens[0] = -3"},
		{`{"completed": 1, "duration": -4}`, "duration = -4"},
	}
	for _, tt := range tests {
		_, err := ReadVLLMBench(strings.NewReader(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ReadVLLMBench(%s) = %v, want an error with %q", tt.in, err, tt.want)
		}
	}
}

// TestVLLMBenchRequestLog checks a --save-detailed file's per-request
// arrays become the run's request log: times in µs, lengths, and the
// failed request's error, and that the log passes the file check.
func TestVLLMBenchRequestLog(t *testing.T) {
	f := readBench(t, "detailed.json").File("r")
	l := f.Runs[0].Requests
	if l == nil || l.Len() != 5 {
		t.Fatalf("request log %+v, want 5 requests", l)
	}
	if l.TTFTUS[0] != 100_000 || l.E2ELUS[0] != 160_000 || l.ITLMaxUS[0] != 20_000 || l.InputTokens[0] != 128 || l.OutputTokens[0] != 4 {
		t.Errorf("request 0: ttft %d e2el %d itl max %d µs, %d in / %d out", l.TTFTUS[0], l.E2ELUS[0], l.ITLMaxUS[0], l.InputTokens[0], l.OutputTokens[0])
	}
	if len(l.Failures) != 1 || l.Failures[0].Index != 4 || l.Failures[0].Reason == "" {
		t.Errorf("failures %+v, want the fifth request with its error", l.Failures)
	}
	if err := f.Check(); err != nil {
		t.Errorf("the imported file fails its own check: %v", err)
	}
	bad := *l
	bad.TTFTUS = append([]int64{-5}, l.TTFTUS[1:]...)
	f.Runs[0].Requests = &bad
	if err := f.Check(); err == nil || !strings.Contains(err.Error(), "requests.ttft_us[0] = -5") {
		t.Errorf("a negative time in the log: error %v", err)
	}
}

// TestVLLMBenchAppendResult checks a file written with --append-result
// (JSON documents one after another) reads as one result each, and that
// one result is read as before.
func TestVLLMBenchAppendResult(t *testing.T) {
	one, err := os.ReadFile(filepath.Join("..", "testdata", "vllmbench", "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	two := string(one) + "\n" + strings.Replace(string(one), `"max_concurrency": 32`, `"max_concurrency": 64`, 1)
	all, err := ReadVLLMBenchAll(strings.NewReader(two))
	if err != nil || len(all) != 2 {
		t.Fatalf("%d results, %v; want 2", len(all), err)
	}
	if *all[0].MaxConcurrency != 32 || *all[1].MaxConcurrency != 64 {
		t.Errorf("concurrency %d, %d; want 32, 64 in file order", *all[0].MaxConcurrency, *all[1].MaxConcurrency)
	}
	if _, err := ReadVLLMBench(strings.NewReader(two)); err == nil || !strings.Contains(err.Error(), "holds 2 results (written with --append-result)") {
		t.Errorf("ReadVLLMBench of two: %v", err)
	}
	if _, err := ReadVLLMBenchAll(strings.NewReader(string(one) + "\n{\"completed\": -1}")); err == nil || !strings.Contains(err.Error(), "result 2") {
		t.Errorf("a bad second result: %v", err)
	}
}
