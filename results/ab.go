package results

import (
	"math"
	"time"
)

// ABSide is which version a file of an A/B job measured.
type ABSide string

// A/B sides.
const (
	// SideBaseline is the side --ab-var sets (the version compared against).
	SideBaseline ABSide = "baseline"
	// SideCandidate is the side --var and the defaults set.
	SideCandidate ABSide = "candidate"
)

// ABMode is how an A/B job kept the two sides' server containers while it
// alternated blocks between them. Endpoints and simulators always stay up
// for the whole run, whatever the mode.
type ABMode string

// A/B modes.
const (
	// ABTogether keeps both sides' containers up for the whole run: they
	// must fit on the runner together (the user splits the GPU memory, for
	// example with a variable for --gpu-memory-utilization).
	ABTogether ABMode = "together"
	// ABAlternate stops one side's container and starts the other's before
	// every block, reusing the weight and compile cache volumes: the
	// default for server containers, since it needs no more GPU than one side.
	ABAlternate ABMode = "alternate"
	// ABCrossover keeps both sides up on disjoint GPUs (each side's gpus
	// setting) and swaps the GPUs halfway through every run, so that a
	// difference between the GPUs does not read as one between the sides.
	ABCrossover ABMode = "crossover"
)

// AB marks a results file as one side of an A/B gate measured in one job:
// the baseline and the candidate ran in the same job, alternating blocks
// of every run's requests (see Run.Blocks). The candidate's file is the
// one named by -o; the baseline side's sits beside it (ABBaselinePath).
type AB struct {
	// Side is SideBaseline or SideCandidate.
	Side ABSide `json:"side" text:"name"`
	// Pair is the other side's results file, by base name (it sits in the
	// same directory).
	Pair string `json:"pair" text:"name"`
	// Schedule is the order of the blocks of every run, "A" for the
	// baseline side and "B" for the candidate, e.g. "ABBABAAB".
	Schedule string `json:"schedule" text:"name"`
	// Modes are the server modes used, by target name.
	Modes map[string]ABMode `json:"modes,omitempty" text:"line"`
	// Vars are this side's variables given on the command line
	// (--ab-var for the baseline, --var for the candidate).
	Vars map[string]string `json:"vars,omitempty" text:"line"`
}

// Block is one block of an A/B run: a share of the run's requests measured
// on one side while the other side's block of the same pair ran just
// before or after it, with the same prompts and arrivals.
type Block struct {
	// Pair numbers the block pairs of a run from 0; the baseline's and the
	// candidate's blocks of a pair are adjacent in time.
	Pair int `json:"pair"`
	// Slot is the block's position in the run's schedule, from 0.
	Slot int `json:"slot"`
	// Status is the block's status (StatusOK when it measured cleanly).
	Status   Status    `json:"status" text:"name"`
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished"`
	// Summary and Samples are the block's own, as a run's are.
	Summary Summary  `json:"summary"`
	Samples *Samples `json:"samples,omitempty"`
}

// ABBaselinePath is where an A/B gate writes the baseline side's results
// beside the candidate's file: results.json gives results.baseline.json.
func ABBaselinePath(candidate string) string {
	ext := ""
	for i := len(candidate) - 1; i >= 0 && candidate[i] != '/' && candidate[i] != '\\'; i-- {
		if candidate[i] == '.' {
			ext = candidate[i:]
			break
		}
	}
	return candidate[:len(candidate)-len(ext)] + ".baseline" + ext
}

// MergeBlocks is the summary and samples of a run made of blocks: latency
// statistics over every block's samples (ITL, which keeps no samples, as
// the request-weighted mean of the blocks' statistics, min and max exact),
// reasoning tokens as ITL, counts and token totals summed, rates over the
// summed measured time, the prefix cache's counts pooled (see
// prefixPool), and the server's other figures the worst of the blocks.
func MergeBlocks(blocks []Block) (Summary, *Samples) {
	var s Summary
	all := &Samples{}
	var good float64
	var pool prefixPool
	for i := range blocks {
		b := &blocks[i]
		if b.Samples != nil {
			all.TTFT = append(all.TTFT, b.Samples.TTFT...)
			all.TTFO = append(all.TTFO, b.Samples.TTFO...)
			all.ToolCall = append(all.ToolCall, b.Samples.ToolCall...)
			all.TPOT = append(all.TPOT, b.Samples.TPOT...)
			all.E2EL = append(all.E2EL, b.Samples.E2EL...)
		}
		bs := &b.Summary
		s.Requests.Completed += bs.Requests.Completed
		s.Requests.Failed += bs.Requests.Failed
		s.DurationSeconds += bs.DurationSeconds
		s.InputTokens += bs.InputTokens
		s.OutputTokens += bs.OutputTokens
		good += bs.Goodput.Requests * bs.DurationSeconds
		s.Goodput.Absent = s.Goodput.Absent || bs.Goodput.Absent
		if bs.Server != nil {
			if s.Server == nil {
				s.Server = &ServerMetrics{}
			}
			s.Server.KVCacheUsageMax = math.Max(s.Server.KVCacheUsageMax, bs.Server.KVCacheUsageMax)
			s.Server.RequestsWaitingMax = math.Max(s.Server.RequestsWaitingMax, bs.Server.RequestsWaitingMax)
			s.Server.Preemptions += bs.Server.Preemptions
			pool.add(bs.Server)
			s.Server.QueueTime = mergeLatency(s.Server.QueueTime, bs.Server.QueueTime)
			s.Server.PrefillTime = mergeLatency(s.Server.PrefillTime, bs.Server.PrefillTime)
			s.Server.DecodeTime = mergeLatency(s.Server.DecodeTime, bs.Server.DecodeTime)
			s.Server.InferenceTime = mergeLatency(s.Server.InferenceTime, bs.Server.InferenceTime)
			s.Server.SpecDecode = mergeSpecDecode(s.Server.SpecDecode, bs.Server.SpecDecode)
		}
		if bs.Structured != nil {
			if s.Structured == nil {
				s.Structured = &Structured{ValidRate: 1}
			}
			s.Structured.ValidRate = math.Min(s.Structured.ValidRate, bs.Structured.ValidRate)
		}
		s.ToolCalls = mergeToolCalls(s.ToolCalls, bs.ToolCalls)
		if r := bs.Reasoning; r != nil {
			if s.Reasoning == nil {
				s.Reasoning = &Reasoning{}
			}
			s.Reasoning.Requests += r.Requests
			s.Reasoning.Counted += r.Counted
			s.Reasoning.Unanswered += r.Unanswered
		}
		s.Client.ScheduleLagP99 = math.Max(s.Client.ScheduleLagP99, bs.Client.ScheduleLagP99)
	}
	s.TTFT, s.TPOT, s.E2EL = ComputeStats(all.TTFT), ComputeStats(all.TPOT), ComputeStats(all.E2EL)
	s.TTFO = ComputeStats(all.TTFO)
	if s.ToolCalls != nil && len(all.ToolCall) > 0 {
		s.ToolCalls.Time = ComputeStats(all.ToolCall)
	}
	if s.Reasoning != nil {
		// no per-request token counts are kept: weighed by the blocks' counts, as ITL
		of := func(pick func(*Reasoning) Stats) func(*Summary) Stats {
			return func(b *Summary) Stats {
				if b.Reasoning == nil {
					return Stats{}
				}
				return pick(b.Reasoning)
			}
		}
		s.Reasoning.Tokens = mergeStats(blocks, of(func(r *Reasoning) Stats { return r.Tokens }))
		s.Reasoning.AnswerTokens = mergeStats(blocks, of(func(r *Reasoning) Stats { return r.AnswerTokens }))
	}
	s.ITL = mergeStats(blocks, func(b *Summary) Stats { return b.ITL })
	total := s.Requests.Completed + s.Requests.Failed
	if total > 0 {
		s.ErrorRate = float64(s.Requests.Failed) / float64(total)
	}
	if d := s.DurationSeconds; d > 0 {
		s.Throughput.Requests = float64(s.Requests.Completed) / d
		s.Throughput.OutputTokens = float64(s.OutputTokens) / d
		s.Throughput.TotalTokens = float64(s.InputTokens+s.OutputTokens) / d
		s.Goodput.Requests = good / d
		if s.Throughput.Requests > 0 {
			// at most every request was good: the sums' rounding may
			// make the ratio a hair over 1, which Check refuses
			s.Goodput.Ratio = min(s.Goodput.Requests/s.Throughput.Requests, 1)
		}
		s.Client.AchievedRate = float64(total) / d
	}
	if s.Server != nil {
		s.Server.PrefixCacheQueries, s.Server.PrefixCacheHits, s.Server.PrefixCacheHitRate = pool.pooled()
	}
	if len(all.TTFT)+len(all.TPOT)+len(all.E2EL) == 0 {
		all = nil
	}
	s.Parts = mergeParts(blocks)
	return s, all
}

// mergeLatency adds a block's latency split to the blocks' so far: the
// means weighed by their requests (exact), the quantiles too (an estimate,
// as each block's are).
func mergeLatency(acc, b *ServerLatency) *ServerLatency {
	if b == nil {
		return acc
	}
	if acc == nil {
		c := *b
		return &c
	}
	n := acc.Requests + b.Requests
	if !(n > 0) {
		return acc
	}
	mix := func(x, y float64) float64 { return (x*acc.Requests + y*b.Requests) / n }
	return &ServerLatency{Requests: n, Mean: mix(acc.Mean, b.Mean), P50: mix(acc.P50, b.P50), P90: mix(acc.P90, b.P90), P95: mix(acc.P95, b.P95), P99: mix(acc.P99, b.P99),
		FirstBucket: max(acc.FirstBucket, b.FirstBucket)}
}

// mergeStats weighs each block's statistics of one family by its count.
func mergeStats(blocks []Block, of func(*Summary) Stats) Stats {
	var m Stats
	first := true
	for i := range blocks {
		st := of(&blocks[i].Summary)
		if st.N == 0 {
			continue
		}
		w := float64(st.N)
		n := float64(m.N) + w
		mix := func(a, b float64) float64 { return (a*float64(m.N) + b*w) / n }
		m.Mean, m.Median, m.Std = mix(m.Mean, st.Mean), mix(m.Median, st.Median), mix(m.Std, st.Std)
		m.P50, m.P90, m.P95, m.P99, m.P999 = mix(m.P50, st.P50), mix(m.P90, st.P90), mix(m.P95, st.P95), mix(m.P99, st.P99), mix(m.P999, st.P999)
		if first || st.Min < m.Min {
			m.Min = st.Min
		}
		m.Max = math.Max(m.Max, st.Max)
		m.N += st.N
		first = false
	}
	return m
}

// JoinRequestLogs is the request logs of a run's blocks as one log: the
// columns concatenated in block order, each block's send times shifted by
// its start (offsetsUS, µs after the first block's measured start) and its
// failure and structured-output indexes by the requests before it. Nil
// logs are skipped; nil when every log is.
func JoinRequestLogs(logs []*RequestLog, offsetsUS []int64) *RequestLog {
	var j *RequestLog
	for bi, l := range logs {
		if l == nil {
			continue
		}
		if j == nil {
			j = &RequestLog{}
		}
		base := j.Len()
		for _, s := range l.StartUS {
			j.StartUS = append(j.StartUS, s+offsetsUS[bi])
		}
		j.TTFTUS = append(j.TTFTUS, l.TTFTUS...)
		j.E2ELUS = append(j.E2ELUS, l.E2ELUS...)
		j.ITLMaxUS = append(j.ITLMaxUS, l.ITLMaxUS...)
		j.InputTokens = append(j.InputTokens, l.InputTokens...)
		j.OutputTokens = append(j.OutputTokens, l.OutputTokens...)
		j.Turn = joinColumn(j.Turn, l.Turn, base, l.Len())
		j.TraceRow = joinColumn(j.TraceRow, l.TraceRow, base, l.Len())
		var planned []int64 // on the joined clock, as StartUS
		for _, p := range l.PlannedUS {
			planned = append(planned, p+offsetsUS[bi])
		}
		j.PlannedUS = joinColumn(j.PlannedUS, planned, base, l.Len())
		j.Member = joinColumn(j.Member, l.Member, base, l.Len())
		j.Stage = joinColumn(j.Stage, l.Stage, base, l.Len())
		j.TTFOUS = joinColumn(j.TTFOUS, l.TTFOUS, base, l.Len())
		j.ReasoningTokens = joinColumn(j.ReasoningTokens, l.ReasoningTokens, base, l.Len())
		for _, f := range l.Failures {
			f.Index += base
			j.Failures = append(j.Failures, f)
		}
		for k, i := range l.InvalidStructured {
			j.InvalidStructured = append(j.InvalidStructured, i+base)
			reason := "" // a log from before finish reasons were kept
			if k < len(l.InvalidStructuredFinish) {
				reason = l.InvalidStructuredFinish[k]
			}
			j.InvalidStructuredFinish = append(j.InvalidStructuredFinish, reason)
		}
		for _, i := range l.EmptyAnswers {
			j.EmptyAnswers = append(j.EmptyAnswers, i+base)
		}
	}
	return j
}

// joinColumn appends col, a column of n entries that may be nil (all
// zeros), to joined, which holds base entries or is nil (all zeros).
func joinColumn[T any](joined, col []T, base, n int) []T {
	if col != nil && joined == nil {
		joined = make([]T, base)
	}
	if joined == nil {
		return nil
	}
	if col != nil {
		return append(joined, col...)
	}
	return append(joined, make([]T, n)...)
}
