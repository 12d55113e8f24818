package results

import (
	"sort"
)

// Better says which direction of change is an improvement for a metric.
type Better int

const (
	// LowerIsBetter marks latencies, failures and lag.
	LowerIsBetter Better = iota
	// HigherIsBetter marks throughput, goodput and validity.
	HigherIsBetter
)

// WorseSign is +1 when a rise is worse (LowerIsBetter) and -1 when a fall
// is: a change times it is positive when it is a regression, the sign
// compare's deltas carry.
func (b Better) WorseSign() float64 {
	if b == HigherIsBetter {
		return -1
	}
	return 1
}

// Unit is the unit of a metric's values.
type Unit string

// Units of the metric namespace.
const (
	Milliseconds Unit = "ms"
	PerSecond    Unit = "/s"
	Ratio        Unit = ""
	Count        Unit = "count"
	Percent      Unit = "%"
	MiB          Unit = "MiB"
	Watts        Unit = "W"
	Joules       Unit = "J"
	// JoulesPerToken is energy per output token.
	JoulesPerToken Unit = "J/token"
)

// Family is the first part of a metric's name: a per-request latency
// distribution ("ttft", "tpot", "itl", "e2el") or a group of run-level
// quantities ("throughput", "server", "error_rate", ...).
type Family string

// The per-request latency families. TTFO is the time to the first output
// token that is not reasoning, AIPerf's "time to first output token".
const (
	TTFT Family = "ttft"
	TTFO Family = "ttfo"
	TPOT Family = "tpot"
	ITL  Family = "itl"
	E2EL Family = "e2el"
)

// The conversation-turn families: statistics of the first turns and of the
// later turns of a conversation run ("first_turn.ttft.p95").
const (
	FirstTurn  Family = "first_turn"
	LaterTurns Family = "later_turns"
)

// CapacityFamily is the family of a capacity search's answer
// ("capacity.concurrency", "capacity.rate").
const CapacityFamily Family = "capacity"

// Latency reports whether f is a per-request latency distribution.
func (f Family) Latency() bool {
	switch f {
	case TTFT, TTFO, TPOT, ITL, E2EL:
		return true
	}
	return false
}

// The per-request token families of a reasoning model's run: the
// reasoning tokens of each completed request, and the answer's own.
const (
	ReasoningTokens Family = "reasoning_tokens"
	AnswerTokens    Family = "answer_tokens"
)

// Statistic is what a metric says about its family: a quantile, the mean,
// the spread, an extreme, or (StatValue) a run-level quantity that is not a
// statistic of per-request values at all.
type Statistic int

// Statistics of the namespace.
const (
	// StatValue is a run-level quantity: a rate, a count, a ratio.
	StatValue Statistic = iota
	// StatQuantile is a percentile or the median; Metric.Quantile says which.
	StatQuantile
	// StatMean is the arithmetic mean of the per-request values.
	StatMean
	// StatStdDev is their standard deviation.
	StatStdDev
	// StatMin and StatMax are their extremes.
	StatMin
	StatMax
)

// Metric is one name of the metric namespace that asserts and tolerances
// use, such as "ttft.p95" or "throughput.output_tokens", as typed data:
// what it measures, in which unit, which way is better, and where its
// per-request samples are. Code that needs to know what a metric is asks
// it; nothing splits names.
type Metric struct {
	// Name is the dotted name, e.g. "ttft.p95".
	Name string
	// Family is the distribution or group the metric belongs to.
	Family Family
	// Stat is what the metric says about its family.
	Stat Statistic
	// Bucket names the input-length bucket of a LengthBucket metric; ""
	// for every other family.
	Bucket string
	// Part is the mix member or stage a part's metric describes
	// ("mix.chat.ttft.p95"); zero for a metric of the whole run.
	Part PartRef
	// Of is the latency family a slice's metric describes (TTFT for
	// "length_bucket.long.ttft.p95" and "first_turn.ttft.p95"); "" for
	// metrics that are not of a slice.
	Of Family
	// Quantile is the probability of a StatQuantile statistic (0.95 for p95,
	// 0.5 for the median); 0 otherwise.
	Quantile float64
	// Unit is the unit of the metric's values.
	Unit Unit
	// Better says which direction is an improvement.
	Better Better
	get    func(*Summary) (float64, bool)
	sample func(*Samples) []float64
	// fromLog, when set, takes the per-request values from the run's
	// request log instead (a length bucket's requests).
	fromLog func(*Run) []float64
	// split marks a statistic of the server's latency split (its
	// histograms), which a server with /metrics may still lack.
	split bool
	// specDecode marks a figure of the server's speculative decoding,
	// which a server with /metrics lacks when it does not speculate.
	specDecode bool
	// prefixCache marks the prefix cache's hit rate, which a server with
	// /metrics lacks when it counts no prefix-cache hits.
	prefixCache bool
}

// String is the metric's name.
func (m Metric) String() string { return m.Name }

// Value returns the metric's value in s, and false when s does not have it
// (a server without /metrics, a workload without structured output, a
// latency family with no measured values, goodput not measured).
func (m Metric) Value(s *Summary) (float64, bool) { return m.get(s) }

// Samples returns run's per-request values (ms) of the metric's family for
// significance tests and confidence intervals, or nil when the run has
// none or the family keeps none (ITL is kept only as a histogram; run-level
// quantities have no per-request values).
func (m Metric) Samples(run *Run) []float64 {
	if m.fromLog != nil && run != nil {
		return m.fromLog(run)
	}
	if m.sample == nil || run == nil || run.Samples == nil {
		return nil
	}
	return m.sample(run.Samples)
}

// HasSamples reports whether the metric's family keeps per-request values
// at all (ttft, tpot and e2el statistics, and a length bucket's ttft and
// e2el, from the run's request log).
func (m Metric) HasSamples() bool { return m.sample != nil || m.fromLog != nil }

// stat is one statistic every latency family has.
type stat struct {
	name     string
	kind     Statistic
	quantile float64
	field    func(*Stats) float64
}

// latencyStats are the statistics every latency family has, in display order.
var latencyStats = []stat{
	{"mean", StatMean, 0, func(s *Stats) float64 { return s.Mean }},
	{"median", StatQuantile, 0.5, func(s *Stats) float64 { return s.Median }},
	{"std", StatStdDev, 0, func(s *Stats) float64 { return s.Std }},
	{"min", StatMin, 0, func(s *Stats) float64 { return s.Min }},
	{"max", StatMax, 0, func(s *Stats) float64 { return s.Max }},
	{"p50", StatQuantile, 0.5, func(s *Stats) float64 { return s.P50 }},
	{"p90", StatQuantile, 0.9, func(s *Stats) float64 { return s.P90 }},
	{"p95", StatQuantile, 0.95, func(s *Stats) float64 { return s.P95 }},
	{"p99", StatQuantile, 0.99, func(s *Stats) float64 { return s.P99 }},
	{"p99_9", StatQuantile, 0.999, func(s *Stats) float64 { return s.P999 }},
}

// StatNames are the statistics every latency family has, in display order.
var StatNames = func() []string {
	names := make([]string, len(latencyStats))
	for i, st := range latencyStats {
		names[i] = st.name
	}
	return names
}()

// latencyFamily is one per-request latency distribution of a Summary.
type latencyFamily struct {
	family Family
	stats  func(*Summary) *Stats
	sample func(*Samples) []float64 // nil: no per-request values kept
}

var latencyFamilies = []latencyFamily{
	{TTFT, func(s *Summary) *Stats { return &s.TTFT }, func(s *Samples) []float64 { return s.TTFT }},
	{TTFO, func(s *Summary) *Stats { return &s.TTFO }, func(s *Samples) []float64 { return s.TTFO }},
	{TPOT, func(s *Summary) *Stats { return &s.TPOT }, func(s *Samples) []float64 { return s.TPOT }},
	{ITL, func(s *Summary) *Stats { return &s.ITL }, nil},
	{E2EL, func(s *Summary) *Stats { return &s.E2EL }, func(s *Samples) []float64 { return s.E2EL }},
}

// LatencyFamilies are the per-request latency distributions, in display order.
var LatencyFamilies = func() []string {
	names := make([]string, len(latencyFamilies))
	for i, f := range latencyFamilies {
		names[i] = string(f.family)
	}
	return names
}()

var namespace = buildNamespace()

func always(f func(*Summary) float64) func(*Summary) (float64, bool) {
	return func(s *Summary) (float64, bool) { return f(s), true }
}

// measured reads a statistic of a latency family. A family with no
// values (every request failed, or none had two tokens for a TPOT) has no
// statistics: its zeros must not pass "ttft.p95 < 500". Stats with N unset
// but values filled in (built by hand) still count.
func measured(fam latencyFamily, field func(*Stats) float64) func(*Summary) (float64, bool) {
	return func(s *Summary) (float64, bool) {
		st := fam.stats(s)
		if *st == (Stats{}) {
			return 0, false
		}
		return field(st), true
	}
}

// turnStat reads a statistic of a conversation-turn slice, missing for runs
// without conversations and for a slice with no completed request.
func turnStat(slice func(*Turns) *Slice, stats func(*Slice) *Stats, field func(*Stats) float64) func(*Summary) (float64, bool) {
	return func(s *Summary) (float64, bool) {
		if s.Turns == nil {
			return 0, false
		}
		st := stats(slice(s.Turns))
		if st.N == 0 {
			return 0, false
		}
		return field(st), true
	}
}

// reasoningStat reads a statistic of a reasoning run's tokens, missing
// when no request reasoned.
func reasoningStat(stats func(*Reasoning) *Stats, field func(*Stats) float64) func(*Summary) (float64, bool) {
	return func(s *Summary) (float64, bool) {
		if s.Reasoning == nil || stats(s.Reasoning).N == 0 {
			return 0, false
		}
		return field(stats(s.Reasoning)), true
	}
}

// serverLatencyStats are the statistics of a phase of the server's
// latency split: the mean and the quantiles its histogram gives.
var serverLatencyStats = []struct {
	name     string
	kind     Statistic
	quantile float64
	field    func(*ServerLatency) float64
}{
	{"mean", StatMean, 0, func(l *ServerLatency) float64 { return l.Mean }},
	{"p50", StatQuantile, 0.5, func(l *ServerLatency) float64 { return l.P50 }},
	{"p90", StatQuantile, 0.9, func(l *ServerLatency) float64 { return l.P90 }},
	{"p95", StatQuantile, 0.95, func(l *ServerLatency) float64 { return l.P95 }},
	{"p99", StatQuantile, 0.99, func(l *ServerLatency) float64 { return l.P99 }},
}

// splitStat reads a statistic of a phase of the server's latency split,
// missing for a server without the histogram.
func splitStat(of func(*ServerMetrics) *ServerLatency, field func(*ServerLatency) float64) func(*Summary) (float64, bool) {
	return func(s *Summary) (float64, bool) {
		if s.Server == nil || of(s.Server) == nil {
			return 0, false
		}
		return field(of(s.Server)), true
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

// goodput reads a goodput figure, missing when goodput was not measured.
func goodput(f func(*Goodput) float64) func(*Summary) (float64, bool) {
	return func(s *Summary) (float64, bool) {
		if s.Goodput.Absent {
			return 0, false
		}
		return f(&s.Goodput), true
	}
}

func buildNamespace() map[string]Metric {
	ns := map[string]Metric{}
	add := func(m Metric) { ns[m.Name] = m }
	for _, fam := range latencyFamilies {
		for _, st := range latencyStats {
			add(Metric{Name: string(fam.family) + "." + st.name, Family: fam.family, Stat: st.kind, Quantile: st.quantile,
				Unit: Milliseconds, Better: LowerIsBetter, get: measured(fam, st.field), sample: fam.sample})
		}
	}
	// reasoning_tokens.mean, answer_tokens.p95, ...: missing for a run in
	// which no request reasoned
	for _, tf := range []struct {
		family Family
		stats  func(*Reasoning) *Stats
	}{
		{ReasoningTokens, func(r *Reasoning) *Stats { return &r.Tokens }},
		{AnswerTokens, func(r *Reasoning) *Stats { return &r.AnswerTokens }},
	} {
		for _, st := range latencyStats {
			add(Metric{Name: string(tf.family) + "." + st.name, Family: tf.family, Stat: st.kind, Quantile: st.quantile,
				Unit: Count, Better: LowerIsBetter, get: reasoningStat(tf.stats, st.field)})
		}
	}
	value := func(name string, fam Family, u Unit, b Better, get func(*Summary) (float64, bool)) {
		add(Metric{Name: name, Family: fam, Stat: StatValue, Unit: u, Better: b, get: get})
	}
	value("throughput.requests", "throughput", PerSecond, HigherIsBetter, always(func(s *Summary) float64 { return s.Throughput.Requests }))
	value("throughput.output_tokens", "throughput", PerSecond, HigherIsBetter, always(func(s *Summary) float64 { return s.Throughput.OutputTokens }))
	value("throughput.total_tokens", "throughput", PerSecond, HigherIsBetter, always(func(s *Summary) float64 { return s.Throughput.TotalTokens }))
	value("goodput.requests", "goodput", PerSecond, HigherIsBetter, goodput(func(g *Goodput) float64 { return g.Requests }))
	value("goodput.ratio", "goodput", Ratio, HigherIsBetter, goodput(func(g *Goodput) float64 { return g.Ratio }))
	value("requests.completed", "requests", Count, HigherIsBetter, always(func(s *Summary) float64 { return float64(s.Requests.Completed) }))
	value("requests.failed", "requests", Count, LowerIsBetter, always(func(s *Summary) float64 { return float64(s.Requests.Failed) }))
	value("error_rate", "error_rate", Ratio, LowerIsBetter, always(func(s *Summary) float64 { return s.ErrorRate }))
	value("server.kv_cache_usage.max", "server", Ratio, LowerIsBetter, server(func(m *ServerMetrics) float64 { return m.KVCacheUsageMax }))
	value("server.requests_waiting.max", "server", Count, LowerIsBetter, server(func(m *ServerMetrics) float64 { return m.RequestsWaitingMax }))
	value("server.preemptions", "server", Count, LowerIsBetter, server(func(m *ServerMetrics) float64 { return m.Preemptions }))
	add(Metric{Name: "server.prefix_cache_hit_rate", Family: "server", Stat: StatValue, Unit: Ratio, Better: HigherIsBetter, prefixCache: true,
		get: func(s *Summary) (float64, bool) {
			if s.Server == nil || s.Server.PrefixCacheHitRate == nil {
				return 0, false
			}
			return *s.Server.PrefixCacheHitRate, true
		}})
	// the server's latency split: server.queue_time.p95, server.prefill_time.mean, ...
	for _, phase := range []struct {
		name string
		of   func(*ServerMetrics) *ServerLatency
	}{
		{"queue_time", func(m *ServerMetrics) *ServerLatency { return m.QueueTime }},
		{"prefill_time", func(m *ServerMetrics) *ServerLatency { return m.PrefillTime }},
		{"decode_time", func(m *ServerMetrics) *ServerLatency { return m.DecodeTime }},
		{"inference_time", func(m *ServerMetrics) *ServerLatency { return m.InferenceTime }},
	} {
		for _, st := range serverLatencyStats {
			add(Metric{Name: "server." + phase.name + "." + st.name, Family: "server", Stat: st.kind, Quantile: st.quantile,
				Unit: Milliseconds, Better: LowerIsBetter, get: splitStat(phase.of, st.field), split: true})
		}
	}
	for _, m := range append(specDecodeMetrics(), toolCallMetrics()...) {
		add(m)
	}
	value("structured.valid_rate", "structured", Ratio, HigherIsBetter, func(s *Summary) (float64, bool) {
		if s.Structured == nil {
			return 0, false
		}
		return s.Structured.ValidRate, true
	})
	value("client.schedule_lag.p99", "client", Milliseconds, LowerIsBetter, always(func(s *Summary) float64 { return s.Client.ScheduleLagP99 }))
	value("client.achieved_rate", "client", PerSecond, HigherIsBetter, always(func(s *Summary) float64 { return s.Client.AchievedRate }))
	// conversation turns: first_turn.ttft.p95, later_turns.e2el.mean, ...
	for _, part := range []struct {
		family Family
		slice  func(*Turns) *Slice
	}{
		{FirstTurn, func(t *Turns) *Slice { return &t.First }},
		{LaterTurns, func(t *Turns) *Slice { return &t.Later }},
	} {
		for _, ss := range sliceStats {
			add(Metric{Name: string(part.family) + "." + ss.name, Family: part.family, Of: ss.of, Stat: ss.st.kind, Quantile: ss.st.quantile,
				Unit: Milliseconds, Better: LowerIsBetter, get: turnStat(part.slice, ss.stats, ss.st.field)})
		}
	}
	capacity := func(vary Vary) func(*Summary) (float64, bool) {
		return func(s *Summary) (float64, bool) {
			if s.Capacity == nil || s.Capacity.Vary != vary {
				return 0, false
			}
			return s.Capacity.Value, true
		}
	}
	gpu := func(f func(*GPUMetrics) *float64) func(*Summary) (float64, bool) {
		return func(s *Summary) (float64, bool) {
			if s.GPU == nil {
				return 0, false
			}
			if v := f(s.GPU); v != nil {
				return *v, true
			}
			return 0, false
		}
	}
	value("gpu.util.mean", "gpu", Percent, HigherIsBetter, gpu(func(g *GPUMetrics) *float64 { return &g.UtilMeanPercent }))
	value("gpu.util.max", "gpu", Percent, HigherIsBetter, gpu(func(g *GPUMetrics) *float64 { return &g.UtilMaxPercent }))
	value("gpu.memory_used.max", "gpu", MiB, LowerIsBetter, gpu(func(g *GPUMetrics) *float64 { return &g.MemoryUsedMaxMiB }))
	value("gpu.power.mean", "gpu", Watts, LowerIsBetter, gpu(func(g *GPUMetrics) *float64 { return g.PowerMeanWatts }))
	value("gpu.power.max", "gpu", Watts, LowerIsBetter, gpu(func(g *GPUMetrics) *float64 { return g.PowerMaxWatts }))
	value("gpu.energy", "gpu", Joules, LowerIsBetter, gpu(func(g *GPUMetrics) *float64 {
		if g.Energy == nil {
			return nil
		}
		return &g.Energy.Joules
	}))
	value("gpu.energy_per_token", "gpu", JoulesPerToken, LowerIsBetter, gpu(func(g *GPUMetrics) *float64 {
		if g.Energy == nil {
			return nil
		}
		return g.Energy.PerToken
	}))
	startup := func(phase string) func(*Summary) (float64, bool) {
		return func(s *Summary) (float64, bool) {
			if phase == "" {
				if s.Startup == nil {
					return 0, false
				}
				return s.Startup.Seconds, true
			}
			return s.Startup.Phase(phase)
		}
	}
	value("startup.seconds", "startup", Seconds, LowerIsBetter, startup(""))
	value("startup.weights_seconds", "startup", Seconds, LowerIsBetter, startup(PhaseWeights))
	value("startup.compile_seconds", "startup", Seconds, LowerIsBetter, startup(PhaseCompile))
	value("startup.cuda_graphs_seconds", "startup", Seconds, LowerIsBetter, startup(PhaseGraphs))
	value("capacity.concurrency", CapacityFamily, Count, HigherIsBetter, capacity(VaryConcurrency))
	value("capacity.rate", CapacityFamily, PerSecond, HigherIsBetter, capacity(VaryRate))
	return ns
}

// LookupMetric returns the metric called name, and false when there is none.
func LookupMetric(name string) (Metric, bool) {
	if m, ok := namespace[name]; ok {
		return m, true
	}
	if m, ok := lookupBucketMetric(name); ok {
		return m, true
	}
	return lookupPartMetric(name)
}

// MetricNames returns every name of the namespace that does not depend on
// the run, sorted: the bucket metrics are listed by BucketMetricNames.
func MetricNames() []string {
	names := make([]string, 0, len(namespace))
	for n := range namespace {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Values returns every metric s has, by name, its length buckets' included.
func (s *Summary) Values() map[string]float64 {
	out := make(map[string]float64, len(namespace))
	for name, m := range namespace {
		if v, ok := m.get(s); ok {
			out[name] = v
		}
	}
	for _, b := range s.LengthBuckets {
		if b.Name == "" {
			continue
		}
		for _, ss := range sliceStats {
			m := bucketMetric(b.Name, ss)
			if v, ok := m.get(s); ok {
				out[m.Name] = v
			}
		}
	}
	s.partValues(out)
	return out
}

// MetricRoots returns the distinct families of the namespace ("ttft",
// "throughput", "error_rate", ...), sorted: the names an expression may
// start with.
func MetricRoots() []string {
	seen := map[Family]bool{LengthBucket: true}
	roots := []string{string(LengthBucket)}
	for _, k := range PartKinds {
		seen[Family(k)] = true
		roots = append(roots, string(k))
	}
	for _, m := range namespace {
		if !seen[m.Family] {
			seen[m.Family] = true
			roots = append(roots, string(m.Family))
		}
	}
	sort.Strings(roots)
	return roots
}
