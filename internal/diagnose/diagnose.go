// Package diagnose reads a run's results for the traps of a serving
// benchmark (a full KV cache, a queueing tail, a saturated server, a cold
// prefix cache, invalid structured output, a lagging load generator) and
// names each one it finds with its evidence and a next step. Its functions
// are pure: they read results and return hints, and never format numbers
// beyond the evidence they name.
package diagnose

import (
	"sort"
	"strconv"

	"github.com/llmgate/llmgate/results"
)

// Kind names a trap.
type Kind string

// The traps Run and Sweep look for.
const (
	MemoryBound     Kind = "memory_bound"
	TTFTTail        Kind = "ttft_tail"
	Saturated       Kind = "saturated"
	ColdPrefixCache Kind = "cold_prefix_cache"
	QueueBound      Kind = "queue_bound"
	PrefillBound    Kind = "prefill_bound"
	InvalidOutput   Kind = "invalid_structured_output"
	TPOTGrowth      Kind = "tpot_growth"
	Errors          Kind = "errors"
	StaleConnection Kind = "stale_connection"
	ClientLag       Kind = "client_lag"
)

// Evidence is one value a hint rests on, named as the metric namespace
// names it where it can ("server.preemptions").
type Evidence struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	// Unit is the value's unit when Name is not a metric's (a metric's
	// is the metric's): Count for requests and users.
	Unit results.Unit `json:"unit,omitempty"`
}

// Hint is one trap that fired for a run (or a sweep's runs).
type Hint struct {
	Kind Kind `json:"kind"`
	// Run is the run the hint is about (the sweep's last run for sweep hints).
	Run string `json:"run"`
	// What says what the evidence means; Next is what to try.
	What string `json:"what"`
	Next string `json:"next"`
	// Evidence are the values the hint rests on.
	Evidence []Evidence `json:"evidence"`
}

// Thresholds of the traps.
const (
	// KVFull is the KV cache usage above which a run with preemptions is memory-bound.
	KVFull = 0.95
	// TailRatio is how many times its mean TTFT p99 may be before it is a tail.
	TailRatio = 3.0
	// ColdHitRate is the prefix-cache hit rate below which a prefix workload is cold.
	ColdHitRate = 0.3
	// LagMs is the load generator's own p99 schedule lag (ms) that makes
	// its numbers suspect: half the bound at which load marks a run invalid.
	LagMs = 25.0
	// FlatGain is the throughput gain below which doubling concurrency is flat.
	FlatGain = 1.1
	// SteepTPOT is the TPOT growth per doubling of concurrency that is steep.
	SteepTPOT = 1.5
	// MinRequestsForTail is the fewest completed requests whose p99 means anything.
	MinRequestsForTail = 100
	// MinTailMs is how far (ms) TTFT p99 must be above its mean to be a
	// tail worth a hint: a 5 ms mean with a 20 ms p99 is jitter, not queueing.
	MinTailMs = 100.0
	// SplitShare is the share of the client's mean TTFT that the server's
	// own mean queue (or prefill) time must take, and more than the other,
	// for the run to be queue-bound (prefill-bound) by its histograms.
	SplitShare = 0.5
	// MinSplitTTFTMs is the mean TTFT (ms) below which where it went is
	// not worth a hint: a fast first token is prefill-dominated by nature.
	MinSplitTTFTMs = 100.0
	// MinSplitRequests is the fewest requests the server's histograms must
	// have observed in the run for their split to mean anything.
	MinSplitRequests = 10
)

// Run returns the hints that fire for one run, in a fixed order.
func Run(r *results.Run) []Hint {
	if r == nil || r.Status == results.StatusFailed {
		return nil
	}
	s := &r.Summary
	var hints []Hint
	add := func(k Kind, what, next string, ev ...Evidence) {
		hints = append(hints, Hint{Kind: k, Run: r.Name, What: what, Next: next, Evidence: ev})
	}
	if m := s.Server; m != nil {
		if m.KVCacheUsageMax >= KVFull && m.Preemptions > 0 {
			add(MemoryBound, "the KV cache filled up and the scheduler preempted sequences: memory-bound",
				"run fewer sequences (--max-num-seqs), give the KV cache more memory (--gpu-memory-utilization), use --kv-cache-dtype fp8, or enable prefix caching",
				Evidence{Name: "server.kv_cache_usage.max", Value: m.KVCacheUsageMax}, Evidence{Name: "server.preemptions", Value: m.Preemptions})
		}
		// a server that reports no prefix-cache counters says nothing of its cache
		if hr := m.PrefixCacheHitRate; r.Load != nil && r.Load.Workload == "prefix" && hr != nil && *hr < ColdHitRate {
			add(ColdPrefixCache, "a prefix workload barely hit the prefix cache: caching is off, or its entries were evicted",
				"check --enable-prefix-caching, and whether the KV cache is large enough to keep the shared prefixes",
				Evidence{Name: "server.prefix_cache_hit_rate", Value: *hr})
		}
		split, splitEv := splitBound(s)
		switch q := queueBound(r); {
		case q != nil && split == QueueBound:
			add(QueueBound, "requests were waiting in the server's queue through the whole run, and waiting took most of their TTFT: queue-bound",
				"lower the offered load, or raise --max-num-seqs if memory allows", append(q, splitEv...)...)
		case q != nil:
			add(QueueBound, "requests were waiting in the server's queue through the whole run: queue-bound",
				"lower the offered load, or raise --max-num-seqs if memory allows", q...)
		case split == QueueBound:
			add(QueueBound, "requests spent most of their TTFT waiting in the server's queue (its own histograms): queue-bound",
				"lower the offered load, or raise --max-num-seqs if memory allows", splitEv...)
		}
		if split == PrefillBound {
			add(PrefillBound, "prefill took most of the TTFT (the server's own histograms), not waiting: prefill-bound",
				"shorten or share the prompts (prefix caching), raise --max-num-batched-tokens so a prefill takes fewer steps, or spread the model over more GPUs (--tensor-parallel-size)", splitEv...)
		}
	}
	if s.TTFT.N >= MinRequestsForTail && s.TTFT.Mean > 0 && s.TTFT.P99 > TailRatio*s.TTFT.Mean && s.TTFT.P99-s.TTFT.Mean >= MinTailMs {
		add(TTFTTail, "TTFT p99 is more than 3× its mean: requests queue, or prefill interferes with decode",
			"look at chunked prefill and the batched-token budget (--max-num-batched-tokens), and at the server's waiting queue",
			Evidence{Name: "ttft.p99", Value: s.TTFT.P99}, Evidence{Name: "ttft.mean", Value: s.TTFT.Mean})
	}
	if st := s.Structured; st != nil && st.ValidRate < 1 {
		ev := []Evidence{{Name: "structured.valid_rate", Value: st.ValidRate}}
		what, next := "some structured outputs did not follow the schema", "check the guided-decoding backend and the schema"
		invalid, cut := cutOffAnswers(r)
		if cut > 0 {
			what = "some structured outputs did not follow the schema, some of them cut off at max_tokens (finish_reason \"length\") before their JSON could close"
			next = "raise output_tokens so that an answer fits, then check the guided-decoding backend and the schema for the rest"
			ev = append(ev, Evidence{Name: "invalid answers", Value: float64(invalid)}, Evidence{Name: "invalid answers cut off at max_tokens", Value: float64(cut)})
		}
		if invalid > 0 {
			next += "; the results file lists each failing answer by its index (requests.invalid_structured) with its finish_reason (requests.invalid_structured_finish_reason)"
		}
		add(InvalidOutput, what, next, ev...)
	}
	stale, longestIdle := staleLosses(r)
	if stale > 0 {
		add(StaleConnection, "requests were lost before any answer on connections that had sat idle: the server closes idle keep-alive connections (vLLM after VLLM_HTTP_TIMEOUT_KEEP_ALIVE, 5 s by default) and the client wrote on one it was closing; the client's connection reuse, not a server failure",
			"set idle_timeout in the load block below the server's keep-alive timeout (half of it is safe), or raise the server's timeout",
			Evidence{Name: "requests lost on idle connections", Value: float64(stale), Unit: results.Count}, Evidence{Name: "longest idle before a loss, s", Value: longestIdle})
	}
	if s.ErrorRate > 0 && (stale == 0 || s.Requests.Failed > stale) { // failures other than stale connections
		ev := []Evidence{{Name: "error_rate", Value: s.ErrorRate}, {Name: "requests.failed", Value: float64(s.Requests.Failed)}}
		what, next := "requests failed, spread over the run", "read the first errors in the results and the server log"
		if share, ok := burst(r); ok && share >= BurstShare {
			what = "requests failed in a burst: most failures fell within a fifth of the run"
			next = "look for a stall, restart or overload at that time in the server log"
			ev = append(ev, Evidence{Name: "share of failures in one fifth of the run", Value: share})
		}
		add(Errors, what, next, ev...)
	}
	if s.Client.ScheduleLagP99 > LagMs {
		add(ClientLag, "the load generator itself fell behind its schedule, so latencies include its own delay",
			"give llmgate more CPU, or run it on another machine than the server",
			Evidence{Name: "client.schedule_lag.p99", Value: s.Client.ScheduleLagP99})
	}
	return hints
}

// splitBound says which of the server's queue and prefill time took most
// of the client's TTFT by the server's own histograms (QueueBound,
// PrefillBound, or "" for neither), with the evidence: the one that took
// at least SplitShare of the mean TTFT, and more than the other, of a run
// whose mean TTFT is at least MinSplitTTFTMs over at least
// MinSplitRequests requests.
func splitBound(s *results.Summary) (Kind, []Evidence) {
	m := s.Server
	if m == nil || s.TTFT.N == 0 || s.TTFT.Mean < MinSplitTTFTMs {
		return "", nil
	}
	var queue, prefill float64
	var ev []Evidence
	if q := m.QueueTime; q != nil && q.Requests >= MinSplitRequests {
		queue = q.Mean
		ev = append(ev, Evidence{Name: "server.queue_time.mean", Value: q.Mean})
	}
	if p := m.PrefillTime; p != nil && p.Requests >= MinSplitRequests {
		prefill = p.Mean
		ev = append(ev, Evidence{Name: "server.prefill_time.mean", Value: p.Mean})
	}
	ev = append(ev, Evidence{Name: "ttft.mean", Value: s.TTFT.Mean})
	switch share := SplitShare * s.TTFT.Mean; {
	case queue >= share && queue > prefill:
		return QueueBound, ev
	case prefill >= share && prefill > queue:
		return PrefillBound, ev
	}
	return "", nil
}

// QueueShare is the share of a run's scrapes that must see waiting
// requests for the run to be queue-bound.
const QueueShare = 0.9

// queueBound returns the evidence that requests waited through the whole
// run (in at least QueueShare of at least four scrapes of the server's
// series), or nil.
func queueBound(r *results.Run) []Evidence {
	ss := r.ServerSeries
	if ss == nil || len(ss.Waiting) < 4 {
		return nil
	}
	waiting, most := 0, 0.0
	for _, w := range ss.Waiting {
		if w > 0 {
			waiting++
		}
		most = max(most, w)
	}
	share := float64(waiting) / float64(len(ss.Waiting))
	if share < QueueShare {
		return nil
	}
	return []Evidence{{Name: "share of scrapes with requests waiting", Value: share}, {Name: "server.requests_waiting.max", Value: most}}
}

// staleLosses counts the failures of requests lost before any answer on
// a connection that had been idle (results.RequestFailure.ConnIdleUS), and
// the longest such idle time in seconds.
// cutOffAnswers counts the run's invalid structured answers and, of them,
// those the server cut off at max_tokens (finish_reason "length"); 0, 0
// without a request log.
func cutOffAnswers(r *results.Run) (invalid, cut int) {
	if r.Requests == nil {
		return 0, 0
	}
	for _, reason := range r.Requests.InvalidStructuredFinish {
		if reason == "length" {
			cut++
		}
	}
	return len(r.Requests.InvalidStructured), cut
}

func staleLosses(r *results.Run) (int, float64) {
	if r.Requests == nil {
		return 0, 0
	}
	n, longest := 0, 0.0
	for _, f := range r.Requests.Failures {
		if f.ConnIdleUS > 0 {
			n++
			longest = max(longest, float64(f.ConnIdleUS)/1e6)
		}
	}
	return n, longest
}

// BurstShare is the share of a run's failures that, falling within a
// fifth of the run, makes them a burst.
const BurstShare = 0.5

// burst returns the largest share of failures sent within one fifth of
// the run, and false when there are too few failures to say.
func burst(r *results.Run) (float64, bool) {
	log := r.Requests
	if log == nil || len(log.Failures) < 3 || len(log.StartUS) == 0 {
		return 0, false
	}
	var span int64
	for _, t := range log.StartUS {
		span = max(span, t)
	}
	var ts []int64
	for _, f := range log.Failures {
		if f.ConnIdleUS > 0 {
			continue // a stale connection's loss is not the server's
		}
		if f.Index >= 0 && f.Index < len(log.StartUS) {
			ts = append(ts, log.StartUS[f.Index])
		}
	}
	if len(ts) < 3 || span <= 0 {
		return 0, false
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i] < ts[j] })
	best, j := 0, 0
	for i := range ts {
		for ts[i]-ts[j] > span/5 {
			j++
		}
		best = max(best, i-j+1)
	}
	return float64(best) / float64(len(ts)), true
}

// Sweep returns the hints that fire across the runs of one scenario swept
// over concurrency: throughput flat while concurrency doubles (past the
// knee), and TPOT growing steeply with the batch. runs may be in any order;
// those without a numeric concurrency parameter are ignored.
func Sweep(runs []*results.Run) []Hint {
	type point struct {
		c   float64
		run *results.Run
	}
	var pts []point
	for _, r := range runs {
		if r.Status != results.StatusOK && r.Status != results.StatusInvalid {
			continue
		}
		c, err := strconv.ParseFloat(r.Params["concurrency"], 64)
		if err != nil || c <= 0 {
			continue
		}
		pts = append(pts, point{c, r})
	}
	sort.Slice(pts, func(i, j int) bool { return pts[i].c < pts[j].c })
	var hints []Hint
	flat, steep := false, false
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		if b.c < 2*a.c {
			continue // only doublings (or more) say anything
		}
		ta, tb := a.run.Summary.Throughput.OutputTokens, b.run.Summary.Throughput.OutputTokens
		if !flat && ta > 0 && tb < FlatGain*ta {
			flat = true
			hints = append(hints, Hint{Kind: Saturated, Run: b.run.Name,
				What:     "throughput stayed flat while concurrency grew: the server is saturated, past the knee",
				Next:     "serve at or below the knee's concurrency; more users only wait longer",
				Evidence: []Evidence{{Name: "concurrency", Value: a.c, Unit: results.Count}, {Name: "throughput.output_tokens", Value: ta}, {Name: "concurrency", Value: b.c, Unit: results.Count}, {Name: "throughput.output_tokens", Value: tb}}})
		}
		pa, pb := a.run.Summary.TPOT.P50, b.run.Summary.TPOT.P50
		if !steep && pa > 0 && pb > SteepTPOT*pa {
			steep = true
			hints = append(hints, Hint{Kind: TPOTGrowth, Run: b.run.Name,
				What:     "TPOT grew steeply with the batch: decode is memory-bandwidth or compute bound at this batch size",
				Next:     "cap the batch (--max-num-seqs) where TPOT still meets the SLO, or look at the attention backend and CUDA graphs",
				Evidence: []Evidence{{Name: "concurrency", Value: a.c, Unit: results.Count}, {Name: "tpot.p50", Value: pa}, {Name: "concurrency", Value: b.c, Unit: results.Count}, {Name: "tpot.p50", Value: pb}}})
		}
	}
	return hints
}

// File returns the hints of every run of f, then those of each scenario's
// sweep, in run order.
func File(f *results.File) []Hint {
	if f == nil {
		return nil
	}
	var hints []Hint
	byScenario := map[string][]*results.Run{}
	var order []string
	for i := range f.Runs {
		r := &f.Runs[i]
		hints = append(hints, Run(r)...)
		if _, ok := byScenario[r.Scenario]; !ok {
			order = append(order, r.Scenario)
		}
		byScenario[r.Scenario] = append(byScenario[r.Scenario], r)
	}
	for _, sc := range order {
		hints = append(hints, Sweep(byScenario[sc])...)
	}
	return hints
}

// Change is one piece of a hint's evidence in the baseline and now.
type Change struct {
	Name      string
	Base, Cur float64
}

// Changes returns the evidence of h that base (the same run in the
// baseline) has a different value for: what links a regression to its
// cause ("server.preemptions 0 → 19"). Evidence that is not a metric of
// the namespace is left out.
func Changes(h Hint, base *results.Run) []Change {
	if base == nil {
		return nil
	}
	var out []Change
	for _, e := range h.Evidence {
		m, ok := results.LookupMetric(e.Name)
		if !ok {
			continue
		}
		b, ok := m.Value(&base.Summary)
		if !ok || b == e.Value {
			continue
		}
		out = append(out, Change{Name: e.Name, Base: b, Cur: e.Value})
	}
	return out
}
