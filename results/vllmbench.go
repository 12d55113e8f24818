package results

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/llmgate/llmgate/untrusted"
)

// importNow is the clock an import's file is dated by (tests fix it).
var importNow = time.Now

// VLLMBench is the JSON that `vllm bench serve --save-result` writes: run
// settings, then the benchmark's metrics; with --save-detailed also
// per-request arrays. Latencies are in milliseconds except the per-request
// ttfts and itls, which vLLM saves in seconds.
type VLLMBench struct {
	// Run settings: when, against what, and how the load was shaped.
	Date           string          `json:"date"`
	Backend        string          `json:"backend"`
	ModelID        string          `json:"model_id"`
	TokenizerID    string          `json:"tokenizer_id"`
	NumPrompts     int             `json:"num_prompts"`
	RequestRate    json.RawMessage `json:"request_rate"` // a number or "inf"
	Burstiness     *float64        `json:"burstiness"`
	MaxConcurrency *int            `json:"max_concurrency"`

	// Aggregate results over the whole benchmark.
	Duration             float64  `json:"duration"`
	Completed            int      `json:"completed"`
	Failed               *int     `json:"failed"`
	TotalInputTokens     int64    `json:"total_input_tokens"`
	TotalOutputTokens    int64    `json:"total_output_tokens"`
	RequestThroughput    float64  `json:"request_throughput"`
	RequestGoodput       *float64 `json:"request_goodput"`
	OutputThroughput     float64  `json:"output_throughput"`
	TotalTokenThroughput float64  `json:"total_token_throughput"`

	// Per-request arrays, present with --save-detailed (ttfts and itls in seconds).
	InputLens      []int       `json:"input_lens"`
	OutputLens     []int       `json:"output_lens"`
	TTFTs          []float64   `json:"ttfts"`
	ITLs           [][]float64 `json:"itls"`
	GeneratedTexts []string    `json:"generated_texts"`
	Errors         []string    `json:"errors"`
	// StartTimes, when a vLLM version saves them, are the requests' send
	// times in seconds on any one clock.
	StartTimes []float64 `json:"start_times"`

	// stats holds the mean_/median_/std_/pNN_ <metric>_ms keys by name.
	stats map[string]float64
}

// ReadVLLMBench decodes a `vllm bench serve --save-result` file of one
// result; a file of several (--append-result) is an error naming their
// count (see ReadVLLMBenchAll).
func ReadVLLMBench(r io.Reader) (*VLLMBench, error) {
	all, err := ReadVLLMBenchAll(r)
	if err != nil {
		return nil, err
	}
	if len(all) != 1 {
		return nil, fmt.Errorf("vllm bench result: the file holds %d results (written with --append-result), want one", len(all))
	}
	return all[0], nil
}

// ReadVLLMBenchAll decodes every result of a `vllm bench serve
// --save-result` file from r, up to the input limit: one JSON document, or
// several one after another as --append-result writes them (each appended
// run after a newline), in file order (see ParseVLLMBenchAll).
func ReadVLLMBenchAll(r io.Reader) ([]*VLLMBench, error) {
	raw, err := readBounded(r, "vllm bench result")
	if err != nil {
		return nil, err
	}
	return ParseVLLMBenchAll(raw)
}

// ParseVLLMBenchAll decodes every result of a `vllm bench serve
// --save-result` file already read: each document within the input
// limits and with no key repeated (CheckJSONDocuments) before it is
// decoded.
func ParseVLLMBenchAll(data []byte) ([]*VLLMBench, error) {
	docs, err := CheckJSONDocuments(data, inputLimits)
	if err != nil {
		return nil, fmt.Errorf("decoding vllm bench result: %w", err)
	}
	var out []*VLLMBench
	for i, raw := range docs {
		b, err := decodeVLLMBench(raw)
		if err != nil {
			if len(docs) > 1 {
				return nil, fmt.Errorf("result %d: %w", i+1, err)
			}
			return nil, err
		}
		out = append(out, b)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("decoding vllm bench result: the file is empty")
	}
	return out, nil
}

// decodeVLLMBench decodes and checks one result document.
func decodeVLLMBench(raw []byte) (*VLLMBench, error) {
	var b VLLMBench
	if err := json.Unmarshal(raw, &b); err != nil {
		return nil, fmt.Errorf("decoding vllm bench result: %w", err)
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(raw, &all); err != nil {
		return nil, fmt.Errorf("decoding vllm bench result: %w", err)
	}
	if _, ok := all["completed"]; !ok {
		if _, ok := all["runs"]; ok {
			return nil, fmt.Errorf("not a vllm bench serve result: this is already an llmgate results file")
		}
		return nil, fmt.Errorf("not a vllm bench serve result: no \"completed\" key")
	}
	b.stats = map[string]float64{}
	for k, v := range all {
		var f float64
		if json.Unmarshal(v, &f) == nil {
			b.stats[k] = f
		}
	}
	if err := b.check(); err != nil {
		return nil, err
	}
	if n := len(b.TTFTs); n > 0 && (len(b.OutputLens) != n || (len(b.ITLs) != 0 && len(b.ITLs) != n) || (len(b.Errors) != 0 && len(b.Errors) != n)) {
		return nil, fmt.Errorf("vllm bench result: per-request arrays differ in length (ttfts %d, output_lens %d, itls %d, errors %d)",
			n, len(b.OutputLens), len(b.ITLs), len(b.Errors))
	}
	return &b, nil
}

// MissingStats lists the statistics of the default gate bands (p95 of
// ttft, tpot and e2el) that the file lacks: vLLM saves only the
// percentiles and metrics it was asked for (p99 of ttft, tpot and itl by
// default). Per-request data (Detailed) makes up for them.
func (b *VLLMBench) MissingStats() []string {
	var out []string
	for _, fam := range []string{"ttft", "tpot", "e2el"} {
		if _, ok := b.stats["p95_"+fam+"_ms"]; !ok {
			out = append(out, fam+".p95")
		}
	}
	return out
}

// Detailed reports whether the file has per-request arrays (--save-detailed).
func (b *VLLMBench) Detailed() bool { return len(b.TTFTs) > 0 }

// File converts the result into a results file with one run called name.
// With per-request data the summary and samples are computed from it (TTFT
// from ttfts, E2EL as TTFT plus the inter-token gaps, TPOT as those gaps over
// output tokens minus one); otherwise the summary takes vLLM's statistics
// and the run has no samples, so comparisons against it use bands alone.
func (b *VLLMBench) File(name string) *File {
	f := &File{
		Version:     SchemaVersion,
		Suite:       SuiteInfo{Name: "vllm-bench", Description: "imported from vllm bench serve --save-result"},
		Environment: Environment{Model: untrusted.String(b.ModelID), TargetKind: "endpoint"},
		// when this file was made: vllm bench's own date is the local time
		// of a machine whose zone it does not say, kept as written
		Created: importNow().UTC().Truncate(time.Second),
	}
	params := map[string]string{}
	if rate := b.requestRate(); rate != "" {
		params["request_rate"] = rate
	}
	if b.MaxConcurrency != nil {
		params["max_concurrency"] = strconv.Itoa(*b.MaxConcurrency)
	}
	if b.Burstiness != nil {
		params["burstiness"] = strconv.FormatFloat(*b.Burstiness, 'g', -1, 64)
	}
	failed := b.NumPrompts - b.Completed
	if b.Failed != nil {
		failed = *b.Failed
	}
	failed = max(failed, 0)
	s := Summary{
		Throughput:      Throughput{Requests: b.RequestThroughput, OutputTokens: b.OutputThroughput, TotalTokens: b.TotalTokenThroughput},
		Requests:        Requests{Completed: b.Completed, Failed: failed},
		DurationSeconds: b.Duration,
		InputTokens:     b.TotalInputTokens,
		OutputTokens:    b.TotalOutputTokens,
		Client:          Client{AchievedRate: b.RequestThroughput},
	}
	if tot := b.Completed + failed; tot > 0 {
		s.ErrorRate = float64(failed) / float64(tot)
	}
	if b.RequestGoodput != nil {
		s.Goodput.Requests = *b.RequestGoodput
		if b.RequestThroughput > 0 {
			s.Goodput.Ratio = *b.RequestGoodput / b.RequestThroughput
		}
	} else {
		// vLLM writes request_goodput: null unless --goodput was given:
		// not measured, which is not a goodput of 0.
		s.Goodput.Absent = true
	}
	for _, fam := range []struct {
		key string
		st  *Stats
	}{{"ttft", &s.TTFT}, {"tpot", &s.TPOT}, {"itl", &s.ITL}, {"e2el", &s.E2EL}} {
		*fam.st = b.vllmStats(fam.key)
	}
	// Started and Finished stay zero: the benchmark's time of day is known
	// only in a zone nobody wrote down.
	run := Run{Name: name, Scenario: name, Params: params, Target: "endpoint.vllm-bench", Status: StatusOK,
		Imported: &Imported{From: ImportedVLLMBench, Backend: untrusted.Short(b.Backend, 100), Date: untrusted.Short(b.Date, 100), DateZone: "unknown"}}
	if b.Detailed() {
		smp, itl := b.samples()
		run.Samples = smp
		smp.ITL = NewHistogram()
		for _, v := range itl {
			smp.ITL.Add(v)
		}
		s.TTFT, s.TPOT, s.E2EL = ComputeStats(smp.TTFT), ComputeStats(smp.TPOT), ComputeStats(smp.E2EL)
		if len(itl) > 0 {
			s.ITL = ComputeStats(itl)
		}
		run.Requests = b.requestLog()
	}
	if len(params) == 0 {
		run.Params = nil
	}
	run.Summary = s
	f.Runs = []Run{run}
	// model_id, request_rate and the error texts are the file's to say:
	// made to pass the checks on read (one line where a name or line goes)
	f.CleanText()
	return f
}

// check rejects what no benchmark can measure: negative counts, negative
// or non-finite latencies and rates, in the aggregates, the statistics
// and the per-request arrays.
func (b *VLLMBench) check() error {
	var errs []string
	bad := func(format string, a ...any) {
		if len(errs) < 10 {
			errs = append(errs, fmt.Sprintf(format, a...))
		}
	}
	for _, c := range []struct {
		key string
		v   int64
	}{{"num_prompts", int64(b.NumPrompts)}, {"completed", int64(b.Completed)}, {"total_input_tokens", b.TotalInputTokens}, {"total_output_tokens", b.TotalOutputTokens}} {
		if c.v < 0 {
			bad("%s = %d: a count cannot be negative", c.key, c.v)
		}
	}
	if b.Failed != nil && *b.Failed < 0 {
		bad("failed = %d: a count cannot be negative", *b.Failed)
	}
	if b.MaxConcurrency != nil && *b.MaxConcurrency < 0 {
		bad("max_concurrency = %d: cannot be negative", *b.MaxConcurrency)
	}
	nonNeg := func(key string, v float64) {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			bad("%s = %v: must be a finite number, not negative", key, v)
		}
	}
	nonNeg("duration", b.Duration)
	nonNeg("request_throughput", b.RequestThroughput)
	nonNeg("output_throughput", b.OutputThroughput)
	nonNeg("total_token_throughput", b.TotalTokenThroughput)
	if b.RequestGoodput != nil {
		nonNeg("request_goodput", *b.RequestGoodput)
	}
	for _, k := range slices.Sorted(maps.Keys(b.stats)) {
		if strings.HasSuffix(k, "_ms") {
			nonNeg(k, b.stats[k])
		}
	}
	for i, v := range b.TTFTs {
		nonNeg(fmt.Sprintf("ttfts[%d]", i), v)
	}
	for i, gaps := range b.ITLs {
		for j, v := range gaps {
			nonNeg(fmt.Sprintf("itls[%d][%d]", i, j), v)
		}
	}
	for i, n := range b.InputLens {
		if n < 0 {
			bad("input_lens[%d] = %d: a count cannot be negative", i, n)
		}
	}
	for i, n := range b.OutputLens {
		if n < 0 {
			bad("output_lens[%d] = %d: a count cannot be negative", i, n)
		}
	}
	if len(b.StartTimes) > 0 {
		if len(b.StartTimes) != len(b.TTFTs) {
			bad("start_times has %d entries, ttfts %d", len(b.StartTimes), len(b.TTFTs))
		}
		lo, hi := slices.Min(b.StartTimes), slices.Max(b.StartTimes)
		if math.IsNaN(lo) || math.IsInf(lo, 0) || math.IsNaN(hi) || math.IsInf(hi, 0) || hi-lo > MaxDurationS {
			bad("start_times span %v to %v: must be finite and within %g s of each other", lo, hi, MaxDurationS)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("vllm bench result: %s", strings.Join(errs, "; "))
	}
	return nil
}

func (b *VLLMBench) requestRate() string {
	if len(b.RequestRate) == 0 || string(b.RequestRate) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(b.RequestRate, &s) == nil {
		return s
	}
	var f float64
	if json.Unmarshal(b.RequestRate, &f) == nil {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return string(b.RequestRate)
}

// vllmStats reads mean_/median_/std_/pNN_<metric>_ms; absent keys stay 0,
// and a metric vLLM did not report at all (e2el unless --percentile-metrics
// names it) gives empty Stats, which the namespace treats as not measured.
func (b *VLLMBench) vllmStats(metric string) Stats {
	if _, ok := b.stats["mean_"+metric+"_ms"]; !ok {
		return Stats{}
	}
	g := func(k string) float64 { return b.stats[k+"_"+metric+"_ms"] }
	return Stats{N: b.Completed, Mean: g("mean"), Median: g("median"), Std: g("std"),
		P50: vbFirstNonZero(g("p50"), g("median")), P90: g("p90"), P95: g("p95"), P99: g("p99"), P999: g("p99.9")}
}

func vbFirstNonZero(a, b float64) float64 {
	if a != 0 {
		return a
	}
	return b
}

// samples converts the per-request arrays of successful requests to
// milliseconds: TTFT, E2EL = TTFT + sum of gaps, TPOT = gaps / (tokens - 1).
func (b *VLLMBench) samples() (*Samples, []float64) {
	smp := &Samples{}
	var itl []float64
	for i, ttft := range b.TTFTs {
		if i < len(b.Errors) && b.Errors[i] != "" {
			continue
		}
		if i < len(b.OutputLens) && b.OutputLens[i] == 0 {
			continue
		}
		var gaps float64
		if i < len(b.ITLs) {
			for _, g := range b.ITLs[i] {
				gaps += g
				itl = append(itl, 1000*g)
			}
		}
		smp.TTFT = append(smp.TTFT, 1000*ttft)
		smp.E2EL = append(smp.E2EL, 1000*(ttft+gaps))
		if i < len(b.OutputLens) && b.OutputLens[i] > 1 {
			smp.TPOT = append(smp.TPOT, 1000*gaps/float64(b.OutputLens[i]-1))
		}
	}
	return smp, itl
}

// requestLog keeps the per-request arrays of a --save-detailed file as the
// run's request log: TTFT, E2EL (TTFT plus the gaps) and the largest gap in
// µs, the lengths, each error as a failure and each answer of no token as
// an empty answer. Start offsets come from start_times when the file has
// them, else they are 0.
func (b *VLLMBench) requestLog() *RequestLog {
	n := len(b.TTFTs)
	l := &RequestLog{StartUS: make([]int64, n), TTFTUS: make([]int64, n), E2ELUS: make([]int64, n),
		ITLMaxUS: make([]int64, n), InputTokens: make([]int, n), OutputTokens: make([]int, n)}
	first := 0.0
	if len(b.StartTimes) == n && n > 0 {
		first = slices.Min(b.StartTimes)
	}
	us := func(sec float64) int64 { return int64(math.Round(sec * 1e6)) }
	for i, ttft := range b.TTFTs {
		if len(b.StartTimes) == n {
			l.StartUS[i] = us(b.StartTimes[i] - first)
		}
		if i < len(b.Errors) && b.Errors[i] != "" {
			l.Failures = append(l.Failures, RequestFailure{Index: i, Kind: ErrorImported, Reason: errorReason(b.Errors[i])})
			continue
		}
		gaps, widest := 0.0, 0.0
		if i < len(b.ITLs) {
			for _, g := range b.ITLs[i] {
				gaps += g
				widest = max(widest, g)
			}
		}
		l.TTFTUS[i], l.E2ELUS[i], l.ITLMaxUS[i] = us(ttft), us(ttft+gaps), us(widest)
		if i < len(b.InputLens) {
			l.InputTokens[i] = b.InputLens[i]
		}
		if i < len(b.OutputLens) {
			l.OutputTokens[i] = b.OutputLens[i]
			if b.OutputLens[i] == 0 { // no token: its ttft is no time (the summary leaves it out)
				l.EmptyAnswers = append(l.EmptyAnswers, i)
			}
		}
	}
	return l
}

// maxImportedReason bounds an imported error string: vLLM keeps whole
// tracebacks there.
const maxImportedReason = 500

// errorReason is an imported error string made safe to print and publish,
// cut to maxImportedReason bytes on a rune boundary.
func errorReason(s string) string { return untrusted.Short(s, maxImportedReason) }
