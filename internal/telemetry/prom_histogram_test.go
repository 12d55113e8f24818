package telemetry

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/results"
)

// TestHistogramQuantile checks the interpolation against figures worked by
// hand the way Prometheus's histogram_quantile computes them.
func TestHistogramQuantile(t *testing.T) {
	inf := math.Inf(1)
	h := &PromHistogram{Bounds: []float64{0.3, 0.5, 0.8, inf}, Counts: []float64{10, 30, 40, 40}}
	for _, tc := range []struct{ q, want float64 }{
		{0.1, 0.12},   // rank 4 of the first bucket's 10, from 0 to 0.3
		{0.5, 0.4},    // rank 20: 10 into the second bucket's 20, 0.3 to 0.5
		{0.99, 0.788}, // rank 39.6: 9.6 into the third bucket's 10, 0.5 to 0.8
		{0.25, 0.3},   // rank 10: the first bucket's top
	} {
		if got := h.Quantile(tc.q); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("q %v: %v, want %v", tc.q, got, tc.want)
		}
	}
	// a rank in the +Inf bucket answers the highest finite bound
	tail := &PromHistogram{Bounds: []float64{0.3, 0.5, 0.8, inf}, Counts: []float64{10, 30, 40, 50}}
	if got := tail.Quantile(0.9); got != 0.8 {
		t.Errorf("q 0.9 in the +Inf bucket: %v, want 0.8", got)
	}
	// nothing counted: no quantile
	if got := (&PromHistogram{Bounds: []float64{0.3, inf}, Counts: []float64{0, 0}}).Quantile(0.5); !math.IsNaN(got) {
		t.Errorf("empty histogram: %v, want NaN", got)
	}
}

// splitPage is a /metrics page with vLLM's four request-time histograms on
// two engines, each holding the observations given (seconds), in vLLM's
// request_latency_buckets (cut short after 5 s: the page's +Inf holds the
// rest).
func splitPage(obs map[string][2][]float64) string {
	bounds := []float64{0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0}
	var b strings.Builder
	for _, name := range []string{"vllm:request_queue_time_seconds", "vllm:request_prefill_time_seconds", "vllm:request_decode_time_seconds", "vllm:request_inference_time_seconds"} {
		fmt.Fprintf(&b, "# HELP %s Histogram.\n# TYPE %s histogram\n", name, name)
		for engine, vs := range obs[name] {
			sum := 0.0
			for _, v := range vs {
				sum += v
			}
			for _, ub := range bounds {
				n := 0
				for _, v := range vs {
					if v <= ub {
						n++
					}
				}
				fmt.Fprintf(&b, "%s_bucket{engine=\"%d\",le=\"%g\",model_name=\"m\"} %d.0\n", name, engine, ub, n)
			}
			fmt.Fprintf(&b, "%s_bucket{engine=\"%d\",le=\"+Inf\",model_name=\"m\"} %d.0\n", name, engine, len(vs))
			fmt.Fprintf(&b, "%s_count{engine=\"%d\",model_name=\"m\"} %d.0\n%s_sum{engine=\"%d\",model_name=\"m\"} %g\n", name, engine, len(vs), name, engine, sum)
		}
	}
	b.WriteString("# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting{engine=\"0\",model_name=\"m\"} 0\n")
	return b.String()
}

func parsePage(t *testing.T, page string) ServerSnapshot {
	t.Helper()
	s, err := ParseServerMetrics(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestServerSplitFromScrapes checks the split over a window against the
// observations made in it: exact means from the sum deltas, quantiles
// interpolated from the bucket deltas, summed over both engines, and
// nothing of what was observed before the window.
func TestServerSplitFromScrapes(t *testing.T) {
	before := map[string][2][]float64{
		"vllm:request_queue_time_seconds":     {{0.1, 4}, {0.2}},
		"vllm:request_prefill_time_seconds":   {{0.05, 0.05}, {0.05}},
		"vllm:request_decode_time_seconds":    {{1, 1}, {1}},
		"vllm:request_inference_time_seconds": {{1.05, 1.05}, {1.05}},
	}
	// in the window: 10 more requests, 6 on engine 0 and 4 on engine 1
	window := map[string][2][]float64{
		"vllm:request_queue_time_seconds":     {{0.1, 0.2, 0.4, 0.4, 0.6, 0.9}, {1.2, 1.2, 1.8, 3}},
		"vllm:request_prefill_time_seconds":   {{0.05, 0.05, 0.05, 0.05, 0.05, 0.05}, {0.1, 0.1, 0.1, 0.35}},
		"vllm:request_decode_time_seconds":    {{2, 2, 2, 2, 2, 2}, {2, 2, 2, 2}},
		"vllm:request_inference_time_seconds": {{2.05, 2.05, 2.05, 2.05, 2.05, 2.05}, {2.1, 2.1, 2.1, 2.35}},
	}
	after := map[string][2][]float64{}
	for name, w := range window {
		for e := range 2 {
			a := after[name]
			a[e] = append(append([]float64(nil), before[name][e]...), w[e]...)
			after[name] = a
		}
	}
	m := ServerMetricsFrom([]ServerSnapshot{parsePage(t, splitPage(before)), parsePage(t, splitPage(after))})
	if m == nil || m.QueueTime == nil || m.PrefillTime == nil || m.DecodeTime == nil || m.InferenceTime == nil {
		t.Fatalf("server metrics %+v: want all four phases", m)
	}
	q := m.QueueTime
	// the window's 10 queue times: 0.1 0.2 | 0.4 0.4 | 0.6 | 0.9 | 1.2 1.2 | 1.8 | 3 (by bucket)
	if q.FirstBucket != 300 || q.Bounded(q.P50) || !m.PrefillTime.Bounded(m.PrefillTime.P50) {
		t.Errorf("first bucket %v ms; queue p50 %v bounded %v, prefill p50 %v bounded %v; want 300, no, yes",
			q.FirstBucket, q.P50, q.Bounded(q.P50), m.PrefillTime.P50, m.PrefillTime.Bounded(m.PrefillTime.P50))
	}
	if q.Requests != 10 || math.Abs(q.Mean-980) > 1e-9 {
		t.Errorf("queue: %v requests, mean %v ms; want 10, 980 (9.8 s / 10)", q.Requests, q.Mean)
	}
	// cumulative in the window: ≤0.3: 2, ≤0.5: 4, ≤0.8: 5, ≤1: 6, ≤1.5: 8, ≤2: 9, ≤2.5: 9, ≤5: 10
	// p50: rank 5, the top of the ≤0.8 bucket; p90: rank 9, the top of ≤2;
	// p95: rank 9.5, half into (2.5, 5]: 3.75 s; p99: rank 9.9: 2.5 + 2.5 x 0.9
	for name, c := range map[string][2]float64{"p50": {q.P50, 800}, "p90": {q.P90, 2000}, "p95": {q.P95, 3750}, "p99": {q.P99, 4750}} {
		if math.Abs(c[0]-c[1]) > 1e-9 {
			t.Errorf("queue %s = %v ms, want %v", name, c[0], c[1])
		}
	}
	// prefill: six of 50 ms and three of 100 ms in the first bucket, one of 350 ms
	if p := m.PrefillTime; math.Abs(p.Mean-95) > 1e-9 || math.Abs(p.P50-300*5/9.0) > 1e-9 {
		t.Errorf("prefill mean %v ms, p50 %v ms; want 95 (exact), %v (rank 5 of the first bucket's 9, from 0 to 300 ms)", p.Mean, p.P50, 300*5/9.0)
	}
	if d := m.DecodeTime; d.Mean != 2000 || d.Requests != 10 {
		t.Errorf("decode mean %v ms of %v requests, want 2000 of 10", d.Mean, d.Requests)
	}
	// the metrics name them
	s := results.Summary{Server: m}
	for name, want := range map[string]float64{"server.queue_time.mean": 980, "server.queue_time.p95": 3750, "server.decode_time.mean": 2000} {
		mt, ok := results.LookupMetric(name)
		if !ok {
			t.Fatalf("no metric %s", name)
		}
		if v, ok := mt.Value(&s); !ok || math.Abs(v-want) > 1e-9 || mt.Unit != results.Milliseconds || mt.Better != results.LowerIsBetter {
			t.Errorf("%s = %v (present %v), unit %q; want %v ms", name, v, ok, mt.Unit, want)
		}
	}
}

// TestServerSplitUnsound leaves the split out where the scrapes cannot
// give it: a restart between them (counts went down), buckets that
// changed, a page without the histograms, a count that is not a number.
func TestServerSplitUnsound(t *testing.T) {
	one := map[string][2][]float64{"vllm:request_queue_time_seconds": {{0.1, 0.2}, nil}}
	two := map[string][2][]float64{"vllm:request_queue_time_seconds": {{0.1, 0.2, 0.3}, nil}}
	if m := ServerMetricsFrom([]ServerSnapshot{parsePage(t, splitPage(two)), parsePage(t, splitPage(one))}); m == nil || m.QueueTime != nil {
		t.Errorf("restart: %+v, want server metrics without a queue time", m)
	}
	if m := ServerMetricsFrom([]ServerSnapshot{parsePage(t, splitPage(one)), parsePage(t, splitPage(one))}); m == nil || m.QueueTime != nil {
		t.Errorf("no request in the window: %+v, want no queue time", m)
	}
	other := strings.ReplaceAll(splitPage(two), `le="0.3"`, `le="0.25"`)
	if m := ServerMetricsFrom([]ServerSnapshot{parsePage(t, splitPage(one)), parsePage(t, other)}); m == nil || m.QueueTime != nil {
		t.Errorf("other buckets: %+v, want no queue time", m)
	}
	nan := regexp.MustCompile(`(vllm:request_queue_time_seconds_sum\{engine="0",model_name="m"\}) \S+`).ReplaceAllString(splitPage(two), "$1 NaN")
	if s := parsePage(t, nan); s.Split != nil && s.Split.Queue != nil {
		t.Errorf("a NaN sum was read: %+v", s.Split.Queue)
	}
	if s := parsePage(t, "# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting 3\n"); s.Split != nil {
		t.Errorf("a page without histograms has a split: %+v", s.Split)
	}
	// a split the server lacks says why
	mt, _ := results.LookupMetric("server.prefill_time.p99")
	if why := mt.WhyNotMeasured(&results.Summary{Server: &results.ServerMetrics{}}); !strings.Contains(why, "vllm:request_queue_time_seconds") {
		t.Errorf("why not measured: %q", why)
	}
}
