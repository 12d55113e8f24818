package results

import (
	"testing"
)

func TestMetricValues(t *testing.T) {
	tests := []struct {
		name    string
		sum     Summary
		metric  string
		want    float64
		present bool
	}{
		// a measured latency statistic is present
		{name: "measured", sum: Summary{TTFT: Stats{N: 3, P95: 120}}, metric: "ttft.p95", want: 120, present: true},
		// no request succeeded: no TTFT, so an SLO on it cannot pass on a zero
		{name: "all failed", sum: Summary{Requests: Requests{Failed: 5}, ErrorRate: 1}, metric: "ttft.p95", present: false},
		// ...while the error rate is there to judge
		{name: "error rate", sum: Summary{Requests: Requests{Failed: 5}, ErrorRate: 1}, metric: "error_rate", want: 1, present: true},
		// one-token answers have no TPOT
		{name: "no tpot", sum: Summary{TTFT: Stats{N: 2, Mean: 5}}, metric: "tpot.mean", present: false},
		// no /metrics: no server metrics
		{name: "no server", sum: Summary{}, metric: "server.preemptions", present: false},
		// throughput is always there, zero included
		{name: "throughput", sum: Summary{}, metric: "throughput.output_tokens", want: 0, present: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, ok := LookupMetric(tt.metric)
			if !ok {
				t.Fatalf("no metric %q", tt.metric)
			}
			got, present := m.Value(&tt.sum)
			if present != tt.present || got != tt.want {
				t.Errorf("Value = %v, %v; want %v, %v", got, present, tt.want, tt.present)
			}
			if _, in := tt.sum.Values()[tt.metric]; in != tt.present {
				t.Errorf("Values() has %q: %v, want %v", tt.metric, in, tt.present)
			}
		})
	}
}

// Every metric docs/suite.md lists for asserts is in the namespace.
func TestNamespaceHasDesignNames(t *testing.T) {
	names := []string{"ttft.p95", "tpot.mean", "itl.p99", "e2el.p99_9", "ttft.median", "ttft.std", "ttft.min", "ttft.max", "ttft.p50", "ttft.p90",
		"throughput.requests", "throughput.output_tokens", "throughput.total_tokens", "goodput.requests", "goodput.ratio",
		"requests.completed", "requests.failed", "error_rate", "server.kv_cache_usage.max", "server.requests_waiting.max",
		"server.preemptions", "server.prefix_cache_hit_rate", "structured.valid_rate", "client.schedule_lag.p99", "client.achieved_rate"}
	for _, n := range names {
		if _, ok := LookupMetric(n); !ok {
			t.Errorf("metric %q is missing", n)
		}
	}
}

// TestShortfall checks which runs are not shown at their level: a closed
// loop of at most LevelRequestsPerUser requests per user, as the load
// generator leaves its mean in flight unchecked; not a longer one, an
// open loop, one user, a failed run or a file without the recorded load.
func TestShortfall(t *testing.T) {
	run := func(l *LoadConfig, status Status, completed, failed int) *Run {
		return &Run{Status: status, Load: l, Summary: Summary{Requests: Requests{Completed: completed, Failed: failed}, Client: Client{MeanInFlight: 3}}}
	}
	tests := []struct {
		name string
		r    *Run
		want *Shortfall
	}{
		{"at most 2 per user", run(&LoadConfig{Concurrency: 32}, StatusOK, 60, 4), &Shortfall{Concurrency: 32, Measured: 64, MeanInFlight: 3}},
		{"more than 2 per user", run(&LoadConfig{Concurrency: 32}, StatusOK, 65, 0), nil},
		{"an open loop", run(&LoadConfig{Concurrency: 32, Rate: 4}, StatusOK, 10, 0), nil},
		{"a trace replay, its concurrency a cap", run(&LoadConfig{Concurrency: 64, Workload: "trace"}, StatusOK, 20, 0), nil},
		{"one user", run(&LoadConfig{Concurrency: 1}, StatusOK, 2, 0), nil},
		{"failed", run(&LoadConfig{Concurrency: 32}, StatusFailed, 0, 0), nil},
		{"no recorded load", run(nil, StatusOK, 10, 0), nil},
		{"invalid, still short", run(&LoadConfig{Concurrency: 8}, StatusInvalid, 16, 0), &Shortfall{Concurrency: 8, Measured: 16, MeanInFlight: 3}},
	}
	for _, tt := range tests {
		got := tt.r.Shortfall()
		if (got == nil) != (tt.want == nil) || (got != nil && *got != *tt.want) {
			t.Errorf("%s: Shortfall() = %+v, want %+v", tt.name, got, tt.want)
		}
	}
}
