package telemetry

import (
	"fmt"
	"io"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/llmgate/llmgate/results"
)

// ServerSnapshot is one scrape of a server's /metrics, reduced to what the
// summary needs: vLLM's metrics, or SGLang's and llama.cpp's server's where
// they mean the same thing (see kvNames and the lists beside it). Counts
// are summed across label sets (engines, models); the KV-cache usage, a
// fraction, is the largest across them, since two engines half full are
// not one engine full.
// A Has* flag is false when the server did not expose that metric.
type ServerSnapshot struct {
	KVCacheUsage     float64 // vllm:kv_cache_usage_perc (0..1), or the older vllm:gpu_cache_usage_perc
	RequestsWaiting  float64 // vllm:num_requests_waiting
	RequestsRunning  float64 // vllm:num_requests_running
	Preemptions      float64 // vllm:num_preemptions_total (counter)
	PrefixQueries    float64 // vllm:prefix_cache_queries_total (counter, tokens)
	PrefixHits       float64 // vllm:prefix_cache_hits_total (counter, tokens)
	HasKVCacheUsage  bool
	HasWaiting       bool
	HasRunning       bool
	HasPreemptions   bool
	HasPrefixQueries bool
	HasPrefixHits    bool
	// Family is the server whose names the page used (MetricsVLLM,
	// MetricsSGLang, MetricsLlamaCpp), "" when it held none llmgate reads.
	Family string
	// Refused says which metrics of the page were left out, as absent,
	// because a value was not within its Limit (NaN, infinite, negative,
	// absurd), and why; "" when none was. llmgate's own words and the
	// metric's name, one of the names it looks for: nothing else of the page.
	Refused string
	// Split is the server's own latency histograms (queue, prefill, decode
	// and inference time), nil when the page had none of them.
	Split *SplitSnapshot
	// SpecDecode is the server's speculative-decoding counters, nil when
	// the page had none (it decodes without speculation).
	SpecDecode *SpecDecodeSnapshot
}

// Any reports whether the scrape held any server metric we use.
func (s ServerSnapshot) Any() bool {
	return s.HasKVCacheUsage || s.HasWaiting || s.HasRunning || s.HasPreemptions || s.HasPrefixQueries || s.HasPrefixHits
}

// The server families whose /metrics llmgate reads, by their name prefix.
const (
	MetricsVLLM     = "vllm"
	MetricsSGLang   = "sglang"
	MetricsLlamaCpp = "llamacpp"
)

// metric names by snapshot field, without the _total suffix; the first
// name found wins, so newer vLLM names take precedence over older ones and
// vLLM's over another server's. SGLang's and llama.cpp's names are mapped
// only where they count the same thing as vLLM's:
//   - sglang:token_usage is the KV pool's used fraction, as
//     vllm:kv_cache_usage_perc; sglang:num_running_reqs and
//     sglang:num_queue_reqs are vLLM's running and waiting;
//     sglang:num_retracted_requests_total counts requests put back in the
//     queue to free KV space and recomputed, vLLM's preemptions (not the
//     gauge sglang:num_retracted_reqs, the latest batch's); prompt tokens
//     (sglang:prompt_tokens_total) and those served from the radix cache
//     (sglang:cached_tokens_total, its cache_source="device" samples when
//     the label is there: vLLM's counters are the GPU cache's) are vLLM's
//     prefix-cache queries and hits, in tokens.
//   - llamacpp:requests_processing and llamacpp:requests_deferred are
//     running and waiting; llamacpp:kv_cache_usage_ratio (older builds) the
//     KV usage. llama.cpp's server counts no prefix-cache hits nor
//     preemptions.
var (
	kvNames       = []string{"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc", "sglang:token_usage", "llamacpp:kv_cache_usage_ratio"}
	waitingNames  = []string{"vllm:num_requests_waiting", "sglang:num_queue_reqs", "llamacpp:requests_deferred"}
	runningNames  = []string{"vllm:num_requests_running", "sglang:num_running_reqs", "llamacpp:requests_processing"}
	preemptNames  = []string{"vllm:num_preemptions", "vllm:num_preemption", "sglang:num_retracted_requests"}
	queriesNames  = []string{"vllm:prefix_cache_queries", "vllm:gpu_prefix_cache_queries", "sglang:prompt_tokens"}
	hitsNames     = []string{"vllm:prefix_cache_hits", "vllm:gpu_prefix_cache_hits", "sglang:cached_tokens"}
	promTextModel = model.UTF8Validation
)

// ParseServerMetrics reads Prometheus text exposition (as vLLM serves on
// /metrics) and returns the snapshot. Metrics it does not know are ignored.
// A metric with a sample, or a total, not within its limit
// (results.LimitRatio for the KV-cache usage, LimitCount for requests,
// LimitTokens for the prefix cache's tokens: what results.Check accepts)
// is left out as absent and named in Refused: a NaN on a page must not
// make the results file unwritable, nor an absurd value one the reader
// refuses.
func ParseServerMetrics(r io.Reader) (ServerSnapshot, error) {
	p := expfmt.NewTextParser(promTextModel)
	fams, err := p.TextToMetricFamilies(r)
	if err != nil {
		return ServerSnapshot{}, fmt.Errorf("parse prometheus metrics: %w", err)
	}
	var s ServerSnapshot
	var fam [6]string
	var refused []string
	read := func(names []string, combine func(a, b float64) float64, l results.Limit, v *float64, has *bool, fam *string) {
		var why string
		*v, *fam, *has, why = lookup(fams, names, combine, l)
		if why != "" {
			refused = append(refused, why)
		}
	}
	read(kvNames, maxf, results.LimitRatio, &s.KVCacheUsage, &s.HasKVCacheUsage, &fam[0])
	read(waitingNames, add, results.LimitCount, &s.RequestsWaiting, &s.HasWaiting, &fam[1])
	read(runningNames, add, results.LimitCount, &s.RequestsRunning, &s.HasRunning, &fam[2])
	read(preemptNames, add, results.LimitCount, &s.Preemptions, &s.HasPreemptions, &fam[3])
	read(queriesNames, add, results.LimitTokens, &s.PrefixQueries, &s.HasPrefixQueries, &fam[4])
	read(hitsNames, add, results.LimitTokens, &s.PrefixHits, &s.HasPrefixHits, &fam[5])
	for _, f := range fam {
		if f != "" {
			s.Family = f
			break
		}
	}
	s.Refused = strings.Join(refused, "; ")
	s.Split = parseSplit(fams)
	s.SpecDecode = parseSpecDecode(fams)
	return s, nil
}

func add(a, b float64) float64  { return a + b }
func maxf(a, b float64) float64 { return max(a, b) }

// lookup finds the first of names (tolerating a _total suffix either way)
// and folds its samples across label sets with combine; fam is the
// server family of the name found. A sample or a total not within l
// leaves the metric absent (ok false) and says why in refused.
func lookup(fams map[string]*dto.MetricFamily, names []string, combine func(a, b float64) float64, l results.Limit) (v float64, fam string, ok bool, refused string) {
	for _, n := range names {
		base := strings.TrimSuffix(n, "_total")
		for _, cand := range []string{base, base + "_total"} {
			if f, found := fams[cand]; found {
				fam, _, _ = strings.Cut(n, ":")
				v, why := fold(f, combine, l)
				if why != "" {
					return 0, fam, false, fmt.Sprintf("%s left out: %s", cand, why)
				}
				return v, fam, true, ""
			}
		}
	}
	return 0, "", false, ""
}

// fold combines the values of f's gauge, counter and untyped samples;
// refused says why a sample or the total is not within l ("" when all are).
// Of SGLang's cached tokens it takes the GPU's (cache_source="device")
// when the samples say their source.
func fold(f *dto.MetricFamily, combine func(a, b float64) float64, l results.Limit) (total float64, refused string) {
	var t float64
	first := true
	for _, m := range f.GetMetric() {
		if src, ok := label(m, "cache_source"); ok && src != "device" {
			continue
		}
		v, ok := sampleValue(m)
		if !ok {
			continue
		}
		if p := l.Problem(v); p != "" {
			return 0, "a sample " + p
		}
		if first {
			t, first = v, false
		} else {
			t = combine(t, v)
		}
	}
	if p := l.Problem(t); p != "" {
		return 0, "the samples' sum " + p
	}
	return t, ""
}

// label returns the value of m's label called name, if it has one.
func label(m *dto.Metric, name string) (string, bool) {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue(), true
		}
	}
	return "", false
}
