package results

import (
	"sort"
	"strings"
)

// Better says which direction of change is an improvement for a metric.
type Better int

const (
	// LowerIsBetter marks latencies, failures and lag.
	LowerIsBetter Better = iota
	// HigherIsBetter marks throughput, goodput and validity.
	HigherIsBetter
)

// Unit is the unit of a metric's values.
type Unit string

// Units of the metric namespace.
const (
	Milliseconds Unit = "ms"
	PerSecond    Unit = "/s"
	Ratio        Unit = ""
	Count        Unit = "count"
)

// Metric describes one name of the metric namespace that asserts and
// tolerances use, such as "ttft.p95" or "throughput.output_tokens".
type Metric struct {
	// Name is the dotted name, e.g. "ttft.p95".
	Name string
	// Unit is the unit of the metric's values.
	Unit Unit
	// Better says which direction is an improvement.
	Better Better
	// Sample names the per-request sample family ("ttft", "tpot", "e2el")
	// that significance tests may use for this metric, or "" when none.
	Sample string
	get    func(*Summary) (float64, bool)
}

// Value returns the metric's value in s, and false when s does not have it
// (a server without /metrics, a workload without structured output, a
// latency family with no measured values).
func (m Metric) Value(s *Summary) (float64, bool) { return m.get(s) }

// StatNames are the statistics every latency family has, in display order.
var StatNames = []string{"mean", "median", "std", "min", "max", "p50", "p90", "p95", "p99", "p99_9"}

// LatencyFamilies are the per-request latency distributions, in display order.
var LatencyFamilies = []string{"ttft", "tpot", "itl", "e2el"}

var namespace = buildNamespace()

func statField(st *Stats, name string) float64 {
	switch name {
	case "mean":
		return st.Mean
	case "median":
		return st.Median
	case "std":
		return st.Std
	case "min":
		return st.Min
	case "max":
		return st.Max
	case "p50":
		return st.P50
	case "p90":
		return st.P90
	case "p95":
		return st.P95
	case "p99":
		return st.P99
	case "p99_9":
		return st.P999
	}
	panic("results: unknown statistic " + name)
}

func family(s *Summary, fam string) *Stats {
	switch fam {
	case "ttft":
		return &s.TTFT
	case "tpot":
		return &s.TPOT
	case "itl":
		return &s.ITL
	case "e2el":
		return &s.E2EL
	}
	panic("results: unknown latency family " + fam)
}

func always(f func(*Summary) float64) func(*Summary) (float64, bool) {
	return func(s *Summary) (float64, bool) { return f(s), true }
}

// measured reads statistic st of latency family fam. A family with no
// values (every request failed, or none had two tokens for a TPOT) has no
// statistics: its zeros must not pass "ttft.p95 < 500". Stats with N unset
// but values filled in (built by hand) still count.
func measured(fam, st string) func(*Summary) (float64, bool) {
	return func(s *Summary) (float64, bool) {
		f := family(s, fam)
		if *f == (Stats{}) {
			return 0, false
		}
		return statField(f, st), true
	}
}

func server(f func(*ServerMetrics) float64) func(*Summary) (float64, bool) {
	return func(s *Summary) (float64, bool) {
		if s.Server == nil {
			return 0, false
		}
		return f(s.Server), true
	}
}

func buildNamespace() map[string]Metric {
	ns := map[string]Metric{}
	add := func(m Metric) { ns[m.Name] = m }
	for _, fam := range LatencyFamilies {
		sample := fam
		if fam == "itl" {
			sample = ""
		}
		for _, st := range StatNames {
			fam, st := fam, st
			add(Metric{Name: fam + "." + st, Unit: Milliseconds, Better: LowerIsBetter, Sample: sample,
				get: measured(fam, st)})
		}
	}
	add(Metric{Name: "throughput.requests", Unit: PerSecond, Better: HigherIsBetter, get: always(func(s *Summary) float64 { return s.Throughput.Requests })})
	add(Metric{Name: "throughput.output_tokens", Unit: PerSecond, Better: HigherIsBetter, get: always(func(s *Summary) float64 { return s.Throughput.OutputTokens })})
	add(Metric{Name: "throughput.total_tokens", Unit: PerSecond, Better: HigherIsBetter, get: always(func(s *Summary) float64 { return s.Throughput.TotalTokens })})
	add(Metric{Name: "goodput.requests", Unit: PerSecond, Better: HigherIsBetter, get: always(func(s *Summary) float64 { return s.Goodput.Requests })})
	add(Metric{Name: "goodput.ratio", Unit: Ratio, Better: HigherIsBetter, get: always(func(s *Summary) float64 { return s.Goodput.Ratio })})
	add(Metric{Name: "requests.completed", Unit: Count, Better: HigherIsBetter, get: always(func(s *Summary) float64 { return float64(s.Requests.Completed) })})
	add(Metric{Name: "requests.failed", Unit: Count, Better: LowerIsBetter, get: always(func(s *Summary) float64 { return float64(s.Requests.Failed) })})
	add(Metric{Name: "error_rate", Unit: Ratio, Better: LowerIsBetter, get: always(func(s *Summary) float64 { return s.ErrorRate })})
	add(Metric{Name: "server.kv_cache_usage.max", Unit: Ratio, Better: LowerIsBetter, get: server(func(m *ServerMetrics) float64 { return m.KVCacheUsageMax })})
	add(Metric{Name: "server.requests_waiting.max", Unit: Count, Better: LowerIsBetter, get: server(func(m *ServerMetrics) float64 { return m.RequestsWaitingMax })})
	add(Metric{Name: "server.preemptions", Unit: Count, Better: LowerIsBetter, get: server(func(m *ServerMetrics) float64 { return m.Preemptions })})
	add(Metric{Name: "server.prefix_cache_hit_rate", Unit: Ratio, Better: HigherIsBetter, get: server(func(m *ServerMetrics) float64 { return m.PrefixCacheHitRate })})
	add(Metric{Name: "structured.valid_rate", Unit: Ratio, Better: HigherIsBetter, get: func(s *Summary) (float64, bool) {
		if s.Structured == nil {
			return 0, false
		}
		return s.Structured.ValidRate, true
	}})
	add(Metric{Name: "client.schedule_lag.p99", Unit: Milliseconds, Better: LowerIsBetter, get: always(func(s *Summary) float64 { return s.Client.ScheduleLagP99 })})
	add(Metric{Name: "client.achieved_rate", Unit: PerSecond, Better: HigherIsBetter, get: always(func(s *Summary) float64 { return s.Client.AchievedRate })})
	return ns
}

// LookupMetric returns the metric called name, and false when there is none.
func LookupMetric(name string) (Metric, bool) {
	m, ok := namespace[name]
	return m, ok
}

// MetricNames returns every name of the namespace, sorted.
func MetricNames() []string {
	names := make([]string, 0, len(namespace))
	for n := range namespace {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Values returns every metric s has, by name.
func (s *Summary) Values() map[string]float64 {
	out := make(map[string]float64, len(namespace))
	for name, m := range namespace {
		if v, ok := m.get(s); ok {
			out[name] = v
		}
	}
	return out
}

// MetricRoots returns the distinct first segments of the namespace
// ("ttft", "throughput", "error_rate", ...), sorted.
func MetricRoots() []string {
	seen := map[string]bool{}
	var roots []string
	for n := range namespace {
		root, _, _ := strings.Cut(n, ".")
		if !seen[root] {
			seen[root] = true
			roots = append(roots, root)
		}
	}
	sort.Strings(roots)
	return roots
}
