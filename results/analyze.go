package results

import (
	"sort"
	"time"
)

// Analysis is everything a run's records give, computed together so that
// the summary, the samples, the per-request log and the client figures
// agree: one pass, one conversion to milliseconds (ms), one rule for when a
// request finished (Record.finish) and one for which requests count
// (measured ones; completed ones for latencies).
type Analysis struct {
	Summary  Summary
	Samples  *Samples
	Requests *RequestLog
	// Lengths compares the lengths the workload drew with the server's
	// usage, over the completed requests that asked for one; nil when none
	// did.
	Lengths *Lengths
}

// Analyze computes a run's Analysis from its records (warmup ones are
// skipped) with the formulas of `vllm bench serve` (calculate_metrics):
// TTFT, E2EL and ITL come from completed requests; TPOT is
// (e2el-ttft)/(out-1) for requests with more than one output token;
// percentiles interpolate linearly and std is the population standard
// deviation, as numpy does by default. Throughput is over the measured
// window (first send to last finish). The client figures are the schedule
// lag p99, the achieved and planned send rates, and the mean number of
// requests in flight (warmup ones included) and of users thinking between
// the first and the last measured request a user took (its send, or the
// start of the think time it held it for): Little's law.
// Server metrics are left nil: the runner adds them from the Scraper.
func Analyze(recs []Record, opts SummarizeOptions) *Analysis {
	a := analyze(recs, opts)
	a.Summary.Parts = partsOf(recs, opts)
	return a
}

// analyze is Analyze without the parts.
func analyze(recs []Record, opts SummarizeOptions) *Analysis {
	var (
		s                          Summary
		samples                    = &Samples{TTFT: []float64{}, TPOT: []float64{}, E2EL: []float64{}, ITL: NewHistogram()}
		log                        = &RequestLog{}
		ttft, tpot, itl, e2el, lag []float64
		ttfo                       []float64
		reasoning                  reasoningSums
		tools                      toolCallSums
		spans, thinking            []span
		good, structured, valid    int
		firstSent, lastSent, end   time.Duration
		firstPlan, lastPlan        time.Duration
		firstTaken, lastTaken      time.Duration
		measured                   int
		lens                       lengthSums
	)
	for i := range recs {
		r := &recs[i]
		if r.Think > 0 {
			thinking = append(thinking, span{r.Scheduled - r.Think, r.Scheduled})
		}
		if r.Warmup {
			// warmup requests still in flight keep users busy in the
			// measured window: they count for Little's law
			spans = append(spans, span{r.Sent, r.finish()})
			continue
		}
		if measured == 0 || r.Sent < firstSent {
			firstSent = r.Sent
		}
		if measured == 0 || r.Sent > lastSent {
			lastSent = r.Sent
		}
		// a user takes a request when it sends it, or when it starts to
		// hold it for its think time: the window users are judged busy over
		taken := r.Sent
		if r.Think > 0 {
			taken = r.Scheduled - r.Think
		}
		if measured == 0 || taken < firstTaken {
			firstTaken = taken
		}
		if measured == 0 || taken > lastTaken {
			lastTaken = taken
		}
		if measured == 0 || r.Scheduled < firstPlan {
			firstPlan = r.Scheduled
		}
		if measured == 0 || r.Scheduled > lastPlan {
			lastPlan = r.Scheduled
		}
		measured++
		f := r.finish()
		end = max(end, f)
		spans = append(spans, span{r.Sent, f})
		lag = append(lag, ms(r.Sent-r.Scheduled))
		s.Client.Reconnects += r.Reconnects
		itlMax := 0.0
		for _, v := range r.ITL {
			itlMax = max(itlMax, v)
		}
		log.add(r, int64(r.Sent/time.Microsecond), itlMax)
		if !r.OK() {
			s.Requests.Failed++
			continue
		}
		s.Requests.Completed++
		lens.add(r)
		s.InputTokens += int64(r.InputTokens)
		s.OutputTokens += int64(r.OutputTokens)
		reasoning.add(r)
		tools.add(r)
		if r.StructuredValid != nil {
			structured++
			if *r.StructuredValid {
				valid++
			}
		}
		t := ms(r.TTFT)
		e := ms(r.E2EL)
		e2el = append(e2el, e)
		if !r.HasTTFT() {
			// no first token: no TTFT or TPOT sample; judged for goodput
			// by its E2EL alone
			s.Requests.EmptyAnswers++
			if isGood(opts, 0, 0, e) {
				good++
			}
			continue
		}
		ttft = append(ttft, t)
		if r.TTFO > 0 {
			ttfo = append(ttfo, ms(r.TTFO))
		} else {
			reasoning.unanswered++
		}
		itl = append(itl, r.ITL...)
		for _, v := range r.ITL {
			samples.ITL.Add(v)
		}
		p := 0.0 // vLLM counts tpot as 0 for goodput when out <= 1
		if r.OutputTokens > 1 {
			p = (e - t) / float64(r.OutputTokens-1)
			tpot = append(tpot, p)
		}
		if isGood(opts, t, p, e) {
			good++
		}
	}
	// start offsets are from the first measured send
	for i := range log.StartUS {
		log.StartUS[i] -= int64(firstSent / time.Microsecond)
	}
	samples.TTFT = append(samples.TTFT, ttft...)
	samples.E2EL = append(samples.E2EL, e2el...)
	samples.TPOT = append(samples.TPOT, tpot...)
	if len(ttfo) > 0 {
		samples.TTFO = append(samples.TTFO, ttfo...)
	}
	s.TTFT = ComputeStats(ttft)
	s.TTFO = ComputeStats(ttfo)
	s.Reasoning = reasoning.summary()
	if s.ToolCalls = tools.summary(); s.ToolCalls != nil {
		samples.ToolCall = append(samples.ToolCall, tools.time...)
	}
	s.TPOT = ComputeStats(tpot)
	s.ITL = ComputeStats(itl)
	s.E2EL = ComputeStats(e2el)

	if measured > 0 {
		s.DurationSeconds = (end - firstSent).Seconds()
	}
	if d := s.DurationSeconds; d > 0 {
		s.Throughput.Requests = float64(s.Requests.Completed) / d
		s.Throughput.OutputTokens = float64(s.OutputTokens) / d
		s.Throughput.TotalTokens = float64(s.InputTokens+s.OutputTokens) / d
		s.Goodput.Requests = float64(good) / d
	}
	if n := s.Requests.Completed + s.Requests.Failed; n > 0 {
		s.ErrorRate = float64(s.Requests.Failed) / float64(n)
		s.Goodput.Ratio = float64(good) / float64(n)
	}
	if structured > 0 {
		s.Structured = &Structured{ValidRate: float64(valid) / float64(structured)}
	}
	sort.Float64s(lag)
	s.Client.ScheduleLagP99 = Percentile(lag, 99)
	if measured > 1 && lastSent > firstSent {
		s.Client.AchievedRate = float64(measured-1) / (lastSent - firstSent).Seconds()
	}
	if measured > 1 && lastPlan > firstPlan {
		s.Client.PlannedRate = float64(measured-1) / (lastPlan - firstPlan).Seconds()
	}
	s.Client.MeanInFlight = meanInFlight(spans, firstTaken, lastTaken)
	s.Client.MeanThinking = meanInFlight(thinking, firstTaken, lastTaken)
	s.Turns = log.Turns()
	s.LengthBuckets = log.LengthBuckets(opts.LengthBuckets, opts.LengthBucketNames)
	return &Analysis{Summary: s, Samples: samples, Requests: log, Lengths: lens.lengths()}
}

// reasoningSums gathers the reasoning of completed requests.
type reasoningSums struct {
	reasoned, counted, unanswered int
	tokens, answer                []float64
}

func (rs *reasoningSums) add(r *Record) {
	rs.tokens = append(rs.tokens, float64(r.ReasoningTokens))
	rs.answer = append(rs.answer, float64(r.AnswerTokens()))
	switch r.Reasoning {
	case ReasoningFromStream:
		rs.reasoned++
		rs.counted++
	case ReasoningFromUsage:
		rs.reasoned++
	}
}

// summary is the run's Reasoning, nil when no request reasoned. A request
// with a first token and no answer token counts as unanswered only then:
// without reasoning, TTFO is missing only from records that predate it.
func (rs *reasoningSums) summary() *Reasoning {
	if rs.reasoned == 0 {
		return nil
	}
	return &Reasoning{Requests: rs.reasoned, Counted: rs.counted, Unanswered: rs.unanswered,
		Tokens: ComputeStats(rs.tokens), AnswerTokens: ComputeStats(rs.answer)}
}

// lengthSums adds up requested and actual lengths of completed requests,
// each over the requests that asked for a length.
type lengthSums struct {
	in, out         int
	inReq, inAct    int64
	outReq, outAct  int64
	inReqMax, inMax int
}

func (l *lengthSums) add(r *Record) {
	if r.RequestedInputTokens > 0 {
		l.in++
		l.inReq += int64(r.RequestedInputTokens)
		l.inAct += int64(r.InputTokens)
		l.inReqMax = max(l.inReqMax, r.RequestedInputTokens)
		l.inMax = max(l.inMax, r.InputTokens)
	}
	if r.RequestedOutputTokens > 0 {
		l.out++
		l.outReq += int64(r.RequestedOutputTokens)
		l.outAct += int64(r.OutputTokens)
	}
}

func (l *lengthSums) lengths() *Lengths {
	if l.in == 0 && l.out == 0 {
		return nil
	}
	var out Lengths
	if l.in > 0 {
		out.InputRequested, out.InputActual = float64(l.inReq)/float64(l.in), float64(l.inAct)/float64(l.in)
		out.InputRequestedMax, out.InputActualMax = l.inReqMax, l.inMax
	}
	if l.out > 0 {
		out.OutputRequested, out.OutputActual = float64(l.outReq)/float64(l.out), float64(l.outAct)/float64(l.out)
	}
	return &out
}

// span is when one request was in flight.
type span struct{ from, to time.Duration }

// meanInFlight is the time-averaged number of spans open (requests in
// flight, users thinking) between the first and the last send (Little's
// law); 0 for a single send.
func meanInFlight(spans []span, first, last time.Duration) float64 {
	if last <= first {
		return 0
	}
	var busy time.Duration
	for _, sp := range spans {
		if from, to := max(sp.from, first), min(sp.to, last); to > from {
			busy += to - from
		}
	}
	return float64(busy) / float64(last-first)
}

// us converts a duration to whole microseconds, rounded.
func us(d time.Duration) int64 { return int64(d.Round(time.Microsecond) / time.Microsecond) }
