package results

import (
	"errors"
	"fmt"
	"math"
)

// maxCheckErrors is how many problems Check lists before it stops.
const maxCheckErrors = 10

// ErrInvalidFile is wrapped by Check's error: the file holds values no
// measurement can produce, so judging it would be judging garbage.
var ErrInvalidFile = errors.New("invalid results file")

// Check rejects a file no measurement can produce: runs without a name or
// with the same name, unknown statuses, and negative, NaN, infinite or
// absurd latencies, rates, ratios and counts, in the summaries, the
// per-request samples, the per-request log and the GPU series, and strings
// their fields may not hold (see checkText: control characters, line breaks
// in names, bidirectional controls, over-long text). Read calls it, so every file compare, gate and
// report judge has passed it. The error names each problem by run and
// field, up to ten of them.
func (f *File) Check() error {
	c := &checker{}
	seen := map[string]int{}
	for i := range f.Runs {
		r := &f.Runs[i]
		c.at = fmt.Sprintf("runs[%d]", i)
		if r.Name == "" {
			c.fail("the run has no name")
		} else {
			c.at = fmt.Sprintf("run %q", r.Name)
			if j, dup := seen[r.Name]; dup {
				c.fail(fmt.Sprintf("the name is used by runs[%d] and runs[%d]; run names must be unique", j, i))
			}
			seen[r.Name] = i
		}
		if !r.Status.Valid() {
			c.fail(fmt.Sprintf("unknown status %q (want ok, invalid, partial or failed)", r.Status))
		}
		c.summary(&r.Summary)
		if r.Samples != nil {
			c.samples(r.Samples)
		}
		if r.Requests != nil {
			c.requestLog(r.Requests)
		}
		c.capacity(r.Capacity, r.Summary.Capacity)
		c.gpu(r.Summary.GPU, r.GPUSeries)
		c.startup(r.Summary.Startup)
	}
	c.gateVerdict(f.Gate)
	c.checkText(f)
	return c.err()
}

// checker collects Check's problems.
type checker struct {
	at   string // the run being checked
	errs []string
	more int
}

func (c *checker) fail(msg string) {
	if len(c.errs) == maxCheckErrors {
		c.more++
		return
	}
	c.errs = append(c.errs, c.at+": "+msg)
}

func (c *checker) err() error {
	if len(c.errs) == 0 {
		return nil
	}
	msg := ""
	for _, e := range c.errs {
		msg += "\n  " + e
	}
	if c.more > 0 {
		msg += fmt.Sprintf("\n  and %d more", c.more)
	}
	return fmt.Errorf("%w:%s", ErrInvalidFile, msg)
}

// value checks that v is within l (Limit.Problem).
func (c *checker) value(field string, v float64, l Limit) {
	if p := l.Problem(v); p != "" {
		c.fail(field + " " + p)
	}
}

// optValue checks v, when it is there, as value does.
func (c *checker) optValue(field string, v *float64, l Limit) {
	if v != nil {
		c.value(field, *v, l)
	}
}

func (c *checker) count(field string, v int64) {
	if v < 0 {
		c.fail(fmt.Sprintf("%s = %d: a count cannot be negative", field, v))
	}
}

func (c *checker) summary(s *Summary) {
	for _, fam := range []struct {
		name string
		st   *Stats
	}{{"ttft", &s.TTFT}, {"ttfo", &s.TTFO}, {"tpot", &s.TPOT}, {"itl", &s.ITL}, {"e2el", &s.E2EL}} {
		st := fam.st
		c.count("summary."+fam.name+".n", int64(st.N))
		for _, v := range []struct {
			stat string
			v    float64
		}{{"mean", st.Mean}, {"median", st.Median}, {"std", st.Std}, {"min", st.Min}, {"max", st.Max},
			{"p50", st.P50}, {"p90", st.P90}, {"p95", st.P95}, {"p99", st.P99}, {"p99_9", st.P999}} {
			c.value("summary."+fam.name+"."+v.stat, v.v, LimitLatency)
		}
	}
	c.value("summary.throughput.requests", s.Throughput.Requests, LimitRate)
	c.value("summary.throughput.output_tokens", s.Throughput.OutputTokens, LimitRate)
	c.value("summary.throughput.total_tokens", s.Throughput.TotalTokens, LimitRate)
	c.value("summary.goodput.requests", s.Goodput.Requests, LimitRate)
	c.value("summary.goodput.ratio", s.Goodput.Ratio, LimitRatio)
	c.count("summary.requests.completed", int64(s.Requests.Completed))
	c.count("summary.requests.failed", int64(s.Requests.Failed))
	c.count("summary.requests.empty_answers", int64(s.Requests.EmptyAnswers))
	if s.Requests.EmptyAnswers > s.Requests.Completed {
		c.fail(fmt.Sprintf("summary.requests.empty_answers = %d is more than the %d completed requests", s.Requests.EmptyAnswers, s.Requests.Completed))
	}
	c.value("summary.error_rate", s.ErrorRate, LimitRatio)
	if m := s.Server; m != nil {
		c.value("summary.server.kv_cache_usage_max", m.KVCacheUsageMax, LimitRatio)
		c.value("summary.server.requests_waiting_max", m.RequestsWaitingMax, LimitCount)
		c.value("summary.server.preemptions", m.Preemptions, LimitCount)
		c.optValue("summary.server.prefix_cache_hit_rate", m.PrefixCacheHitRate, LimitRatio)
		c.optValue("summary.server.prefix_cache_queries", m.PrefixCacheQueries, LimitTokens)
		c.optValue("summary.server.prefix_cache_hits", m.PrefixCacheHits, LimitTokens)
		for _, p := range []struct {
			name string
			l    *ServerLatency
		}{{"queue_time", m.QueueTime}, {"prefill_time", m.PrefillTime}, {"decode_time", m.DecodeTime}, {"inference_time", m.InferenceTime}} {
			if l := p.l; l != nil {
				f := "summary.server." + p.name
				c.value(f+".requests", l.Requests, LimitRequestCount)
				for _, v := range []struct {
					stat string
					v    float64
				}{{"mean", l.Mean}, {"p50", l.P50}, {"p90", l.P90}, {"p95", l.P95}, {"p99", l.P99}, {"first_bucket", l.FirstBucket}} {
					c.value(f+"."+v.stat, v.v, LimitLatency)
				}
			}
		}
	}
	if m := s.Server; m != nil && m.SpecDecode != nil {
		c.specDecode(m.SpecDecode)
	}
	if r := s.Reasoning; r != nil {
		c.count("summary.reasoning.requests", int64(r.Requests))
		c.count("summary.reasoning.counted", int64(r.Counted))
		c.count("summary.reasoning.unanswered", int64(r.Unanswered))
		c.tokenStats("summary.reasoning.tokens", &r.Tokens)
		c.tokenStats("summary.reasoning.answer_tokens", &r.AnswerTokens)
	}
	if st := s.Structured; st != nil {
		c.value("summary.structured.valid_rate", st.ValidRate, LimitRatio)
	}
	if tc := s.ToolCalls; tc != nil {
		c.toolCalls(tc)
	}
	c.value("summary.client.schedule_lag_p99", s.Client.ScheduleLagP99, LimitLatency)
	c.value("summary.client.achieved_rate", s.Client.AchievedRate, LimitRate)
	c.count("summary.client.reconnects", int64(s.Client.Reconnects))
	c.value("summary.duration_s", s.DurationSeconds, LimitDuration)
	c.count("summary.input_tokens", s.InputTokens)
	c.count("summary.output_tokens", s.OutputTokens)
	c.buckets(s.LengthBuckets)
	c.parts(s.Parts)
}

// tokenStats checks the statistics of a per-request token count.
func (c *checker) tokenStats(field string, st *Stats) { c.stats(field, st, LimitRequestTokens) }

// stats checks a per-request quantity's statistics against l.
func (c *checker) stats(field string, st *Stats, l Limit) {
	c.count(field+".n", int64(st.N))
	for _, v := range []struct {
		stat string
		v    float64
	}{{"mean", st.Mean}, {"median", st.Median}, {"std", st.Std}, {"min", st.Min}, {"max", st.Max},
		{"p50", st.P50}, {"p90", st.P90}, {"p95", st.P95}, {"p99", st.P99}, {"p99_9", st.P999}} {
		c.value(field+"."+v.stat, v.v, l)
	}
}

// buckets checks the input-length buckets' names, which metric names and
// reports use (a name may be empty in files from before buckets had
// names, but not repeated), and their bounds.
func (c *checker) buckets(bs []Slice) {
	seen := map[string]bool{}
	for i, b := range bs {
		field := fmt.Sprintf("summary.length_buckets[%d]", i)
		switch {
		case b.Name != "" && !ValidBucketName(b.Name):
			c.fail(fmt.Sprintf("%s.name %q: a bucket's name is a letter, then letters, digits or _, at most 32 characters", field, b.Name))
		case b.Name != "" && seen[b.Name]:
			c.fail(fmt.Sprintf("%s.name %q names two buckets", field, b.Name))
		}
		seen[b.Name] = true
		if b.MinInputTokens < 0 || b.MaxInputTokens < 0 || b.MaxInputTokens > 0 && b.MaxInputTokens < b.MinInputTokens {
			c.fail(fmt.Sprintf("%s covers %d to %d tokens: not a range of input lengths", field, b.MinInputTokens, b.MaxInputTokens))
		}
	}
}

func (c *checker) samples(s *Samples) {
	for _, fam := range []struct {
		name string
		xs   []float64
	}{{"ttft", s.TTFT}, {"ttfo", s.TTFO}, {"tool_call", s.ToolCall}, {"tpot", s.TPOT}, {"e2el", s.E2EL}} {
		for i, v := range fam.xs {
			if LimitLatency.Problem(v) != "" {
				c.value(fmt.Sprintf("samples.%s[%d]", fam.name, i), v, LimitLatency)
			}
		}
	}
	if h := s.ITL; h != nil {
		if !(h.Base > 0) || math.IsInf(h.Base, 0) || !(h.Growth > 1) || math.IsInf(h.Growth, 0) {
			c.fail(fmt.Sprintf("samples.itl: base %g and growth %g do not make a histogram (want base > 0, growth > 1)", h.Base, h.Growth))
		}
		if len(h.Counts) > maxBuckets {
			c.fail(fmt.Sprintf("samples.itl has %d buckets, more than %d", len(h.Counts), maxBuckets))
		}
		c.count("samples.itl.under", h.Under)
		for i, n := range h.Counts {
			if n < 0 {
				c.count(fmt.Sprintf("samples.itl.counts[%d]", i), n)
			}
		}
	}
}
