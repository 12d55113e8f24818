package sim

import (
	"io"
	"sort"
	"strconv"
	"sync"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"google.golang.org/protobuf/proto"
)

// stats holds the engine's counters, gauges and histograms, exported on
// /metrics under vLLM's names with labels model_name and engine.
type stats struct {
	mu sync.Mutex

	running, waiting int
	kvUsage          float64

	prefixQueries, prefixHits float64
	preemptions               float64
	promptTokens, genTokens   float64
	success                   map[string]float64 // by finished_reason

	ttft, itl, e2e, queue, iterTokens *histogram
	// prefill, decode and inference are vLLM's request intervals: from
	// (first) scheduled to first token, first token to last, scheduled to last
	prefill, decode, inference *histogram
	// spec is the speculative-decoding counters, nil without it
	spec *specStats
}

// histogram is a fixed-bucket histogram.
type histogram struct {
	bounds []float64
	counts []uint64 // per bucket (not cumulative); len(bounds)+1
	sum    float64
	count  uint64
}

func newHistogram(bounds []float64) *histogram {
	return &histogram{bounds: bounds, counts: make([]uint64, len(bounds)+1)}
}

func (h *histogram) observe(v float64) {
	i := sort.SearchFloat64s(h.bounds, v) // first bound >= v: le semantics
	h.counts[i]++
	h.sum += v
	h.count++
}

// vLLM's bucket boundaries (vllm/v1/metrics/loggers.py).
var (
	ttftBuckets = []float64{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0}
	itlBuckets  = []float64{0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0}
	reqBuckets  = []float64{0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0}
	iterBuckets = []float64{1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384}
)

func newStats() *stats {
	return &stats{
		success:    map[string]float64{"stop": 0, "length": 0, "abort": 0},
		ttft:       newHistogram(ttftBuckets),
		itl:        newHistogram(itlBuckets),
		e2e:        newHistogram(reqBuckets),
		queue:      newHistogram(reqBuckets),
		iterTokens: newHistogram(iterBuckets),
		prefill:    newHistogram(reqBuckets),
		decode:     newHistogram(reqBuckets),
		inference:  newHistogram(reqBuckets),
	}
}

func (s *stats) setGauges(running, waiting int, usage float64) {
	s.mu.Lock()
	s.running, s.waiting, s.kvUsage = running, waiting, usage
	s.mu.Unlock()
}

func (s *stats) prefixQuery(queried, hit int, enabled bool) {
	if !enabled {
		return
	}
	s.mu.Lock()
	s.prefixQueries += float64(queried)
	s.prefixHits += float64(hit)
	s.mu.Unlock()
}

func (s *stats) preempted() {
	s.mu.Lock()
	s.preemptions++
	s.mu.Unlock()
}

func (s *stats) observeQueue(d time.Duration) {
	s.mu.Lock()
	s.queue.observe(d.Seconds())
	s.mu.Unlock()
}

func (s *stats) iterationTokens(n int) { s.iterTokens.observe(float64(n)) }

func (s *stats) firstTokenLocked(ttft, prefill time.Duration, promptLen int) {
	s.ttft.observe(ttft.Seconds())
	s.prefill.observe(prefill.Seconds())
	s.promptTokens += float64(promptLen)
	s.genTokens++
}

// tokenLocked counts a decode step's n tokens of one request (more than
// one with speculative decoding), and the time since its last.
func (s *stats) tokenLocked(itl time.Duration, n int) {
	s.itl.observe(itl.Seconds())
	s.genTokens += float64(n)
}

func (s *stats) finishLocked(r *request, reason string, t time.Time) {
	s.success[reason]++
	s.e2e.observe(t.Sub(r.arrival).Seconds())
	if !r.firstToken.IsZero() { // it was scheduled and answered: vLLM's decode and inference intervals
		s.decode.observe(t.Sub(r.firstToken).Seconds())
		s.inference.observe(t.Sub(r.scheduledAt).Seconds())
	}
}

// Snapshot is a point-in-time copy of the simulator's main counters, for
// tests and the in-process target.
type Snapshot struct {
	Running, Waiting          int     // requests in the batch and in the queue
	KVCacheUsage              float64 // fraction of KV blocks in use
	PrefixQueries, PrefixHits float64 // prompt tokens looked up and found in the prefix cache
	Preemptions               float64 // requests preempted so far
	PromptTokens, GenTokens   float64 // prompt tokens prefilled, output tokens produced
	Requests                  float64 // requests finished, any reason
}

func (s *stats) snapshot() Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0.0
	for _, v := range s.success {
		n += v
	}
	return Snapshot{s.running, s.waiting, s.kvUsage, s.prefixQueries, s.prefixHits, s.preemptions, s.promptTokens, s.genTokens, n}
}

// write encodes every metric in Prometheus text format.
func (s *stats) write(w io.Writer, model string) error {
	s.mu.Lock()
	fams := s.families(model)
	s.mu.Unlock()
	for _, f := range fams {
		if _, err := expfmt.MetricFamilyToText(w, f); err != nil {
			return err
		}
	}
	return nil
}

func (s *stats) families(model string) []*dto.MetricFamily {
	labels := func(extra ...string) []*dto.LabelPair {
		lp := []*dto.LabelPair{{Name: proto.String("engine"), Value: proto.String("0")}}
		for i := 0; i+1 < len(extra); i += 2 {
			lp = append(lp, &dto.LabelPair{Name: proto.String(extra[i]), Value: proto.String(extra[i+1])})
		}
		return append(lp, &dto.LabelPair{Name: proto.String("model_name"), Value: proto.String(model)})
	}
	gauge := func(name, help string, v float64) *dto.MetricFamily {
		return &dto.MetricFamily{Name: proto.String(name), Help: proto.String(help), Type: dto.MetricType_GAUGE.Enum(),
			Metric: []*dto.Metric{{Label: labels(), Gauge: &dto.Gauge{Value: proto.Float64(v)}}}}
	}
	counter := func(name, help string, v float64) *dto.MetricFamily {
		return &dto.MetricFamily{Name: proto.String(name), Help: proto.String(help), Type: dto.MetricType_COUNTER.Enum(),
			Metric: []*dto.Metric{{Label: labels(), Counter: &dto.Counter{Value: proto.Float64(v)}}}}
	}
	hist := func(name, help string, h *histogram) *dto.MetricFamily {
		var cum uint64
		buckets := make([]*dto.Bucket, len(h.bounds))
		for i, b := range h.bounds {
			cum += h.counts[i]
			buckets[i] = &dto.Bucket{UpperBound: proto.Float64(b), CumulativeCount: proto.Uint64(cum)}
		}
		return &dto.MetricFamily{Name: proto.String(name), Help: proto.String(help), Type: dto.MetricType_HISTOGRAM.Enum(),
			Metric: []*dto.Metric{{Label: labels(), Histogram: &dto.Histogram{
				SampleCount: proto.Uint64(h.count), SampleSum: proto.Float64(h.sum), Bucket: buckets}}}}
	}
	success := &dto.MetricFamily{Name: proto.String("vllm:request_success_total"), Help: proto.String("Count of successfully processed requests."), Type: dto.MetricType_COUNTER.Enum()}
	for _, reason := range []string{"abort", "length", "stop"} {
		success.Metric = append(success.Metric, &dto.Metric{Label: labels("finished_reason", reason), Counter: &dto.Counter{Value: proto.Float64(s.success[reason])}})
	}
	fams := []*dto.MetricFamily{
		gauge("vllm:num_requests_running", "Number of requests in model execution batches.", float64(s.running)),
		gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.", float64(s.waiting)),
		gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", s.kvUsage),
		counter("vllm:prefix_cache_queries_total", "Prefix cache queries, in terms of number of queried tokens.", s.prefixQueries),
		counter("vllm:prefix_cache_hits_total", "Prefix cache hits, in terms of number of cached tokens.", s.prefixHits),
		counter("vllm:num_preemptions_total", "Cumulative number of preemption from the engine.", s.preemptions),
		counter("vllm:prompt_tokens_total", "Number of prefill tokens processed.", s.promptTokens),
		counter("vllm:generation_tokens_total", "Number of generation tokens processed.", s.genTokens),
		success,
		hist("vllm:iteration_tokens_total", "Histogram of number of tokens per engine_step.", s.iterTokens),
		hist("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", s.ttft),
		hist("vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.", s.itl),
		hist("vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", s.e2e),
		hist("vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.", s.queue),
		hist("vllm:request_inference_time_seconds", "Histogram of time spent in RUNNING phase for request.", s.inference),
		hist("vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request.", s.prefill),
		hist("vllm:request_decode_time_seconds", "Histogram of time spent in DECODE phase for request.", s.decode),
	}
	if sp := s.spec; sp != nil { // vLLM exports them only with a --speculative-config
		perPos := &dto.MetricFamily{Name: proto.String("vllm:spec_decode_num_accepted_tokens_per_pos_total"), Help: proto.String("Accepted tokens per draft position."), Type: dto.MetricType_COUNTER.Enum()}
		for p, v := range sp.perPos {
			perPos.Metric = append(perPos.Metric, &dto.Metric{Label: labels("position", strconv.Itoa(p)), Counter: &dto.Counter{Value: proto.Float64(v)}})
		}
		fams = append(fams,
			counter("vllm:spec_decode_num_drafts_total", "Number of spec decoding drafts.", sp.drafts),
			counter("vllm:spec_decode_num_draft_tokens_total", "Number of draft tokens.", sp.draftTokens),
			counter("vllm:spec_decode_num_accepted_tokens_total", "Number of accepted tokens.", sp.accepted),
			perPos)
	}
	return fams
}
