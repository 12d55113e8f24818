package results

// RequestLog is the per-request record of a run's measured requests, stored
// column by column (struct of arrays) to stay compact: about 40 bytes of JSON
// per request, so 100,000 requests take about 4 MB. Every column has one
// entry per measured request, in send order (Seq), so entry i of each column
// describes the same request; a column that would hold only zeros is
// omitted (nil), never shortened. Times are integer microseconds.
//
// Importers (vllm-bench results, merged shards) fill the same layout: append
// one entry to every column per request, keep StartUS relative to the run's
// first measured send, and list failures in Failures by their index.
type RequestLog struct {
	// StartUS is when each request was sent, µs after the first measured send.
	StartUS []int64 `json:"start_us"`
	// TTFTUS is the time from send to the first generated token, µs; 0 when
	// none came (a failure, or an empty answer listed in EmptyAnswers), and
	// then no TTFT.
	TTFTUS []int64 `json:"ttft_us"`
	// E2ELUS is the time from send to the last chunk, µs; 0 when none came.
	E2ELUS []int64 `json:"e2el_us"`
	// ITLMaxUS is each request's largest inter-token gap, µs (its mean is
	// the TPOT, (E2EL-TTFT)/(OutputTokens-1)); 0 with fewer than two tokens.
	ITLMaxUS []int64 `json:"itl_max_us"`
	// InputTokens and OutputTokens are the server's usage counts.
	InputTokens  []int `json:"input_tokens"`
	OutputTokens []int `json:"output_tokens"`
	// Turn is each request's turn in its conversation (0 for the first);
	// nil when the workload has no conversations.
	Turn []int `json:"turn,omitempty"`
	// TraceRow is the line of the trace row each request replayed (from
	// 1); nil when the workload is not a trace.
	TraceRow []int `json:"trace_row,omitempty"`
	// PlannedUS is, in a trace replay, when each request was planned to be
	// sent (its row's offset, scaled), µs on StartUS's clock: the trace's
	// arrivals, beside StartUS's actual sends. Nil for other workloads.
	PlannedUS []int64 `json:"planned_us,omitempty"`
	// Member is the mix member of each request; nil without a mix.
	Member []string `json:"member,omitempty" text:"name"`
	// Stage is the stage of each request (from 1); nil without stages.
	Stage []int `json:"stage,omitempty"`
	// TTFOUS is each request's time from send to its first answer token
	// (not reasoning), µs, 0 when no answer came; ReasoningTokens its
	// reasoning tokens (Record.ReasoningTokens). Both nil when no request
	// of the log reasoned (TTFO is then the TTFT).
	TTFOUS          []int64 `json:"ttfo_us,omitempty"`
	ReasoningTokens []int   `json:"reasoning_tokens,omitempty"`
	// Failures lists the failed requests by index into the columns; a
	// request not listed succeeded.
	Failures []RequestFailure `json:"failures,omitempty"`
	// InvalidStructured lists, by index, the successful requests whose
	// structured answer did not validate against the schema.
	InvalidStructured []int `json:"invalid_structured,omitempty"`
	// InvalidStructuredFinish is the finish_reason of each answer in
	// InvalidStructured, in its order ("length": cut off at max_tokens, so
	// its JSON could not close; "" when the server gave none); nil in files
	// written before it was kept.
	InvalidStructuredFinish []string `json:"invalid_structured_finish_reason,omitempty" text:"name"`
	// EmptyAnswers lists, by index, the successful requests whose answer
	// ended before its first token (Record.EmptyAnswer): they have no
	// TTFT, and their 0 in TTFTUS is none. Nil when there were none, and
	// in files written before it was kept.
	EmptyAnswers []int `json:"empty_answers,omitempty"`
}

// RequestFailure is one failed request of a RequestLog.
type RequestFailure struct {
	// Index is the request's entry in the RequestLog columns.
	Index int `json:"i"`
	// Kind classifies the failure as Record.ErrorKind does.
	Kind ErrorKind `json:"kind" text:"name"`
	// Reason is the error: HTTP status and body excerpt, or what went wrong.
	Reason string `json:"reason"`
	// ConnIdleUS is, for a request lost before any answer came, how long
	// the connection it was written on had been idle, µs (Record.ConnIdle);
	// 0 for a fresh connection, and for other failures. A server closes a
	// connection idle past its keep-alive timeout, so such losses are the
	// client's stale connections, not the server's failures.
	ConnIdleUS int64 `json:"conn_idle_us,omitempty"`
}

// lazyAppend appends v, request i's entry, to a column that exists only
// once some request has one (present): the first such request makes it,
// the requests before it zeros.
func lazyAppend[T int | int64](col []T, v T, present bool, i int) []T {
	if present && col == nil {
		col = make([]T, i, i+1)
	}
	if col != nil {
		col = append(col, v)
	}
	return col
}

// Len is the number of requests in the log.
func (l *RequestLog) Len() int { return len(l.StartUS) }

// add appends one measured record, sent at start µs.
func (l *RequestLog) add(r *Record, start int64, itlMax float64) {
	i := l.Len()
	l.StartUS = append(l.StartUS, start)
	l.TTFTUS = append(l.TTFTUS, us(r.TTFT))
	l.E2ELUS = append(l.E2ELUS, us(r.E2EL))
	l.ITLMaxUS = append(l.ITLMaxUS, int64(itlMax*1000+0.5))
	l.InputTokens = append(l.InputTokens, r.InputTokens)
	l.OutputTokens = append(l.OutputTokens, r.OutputTokens)
	l.Turn = lazyAppend(l.Turn, r.Turn, r.Turn > 0, i)
	l.TraceRow = lazyAppend(l.TraceRow, r.TraceRow, r.TraceRow > 0, i)
	l.PlannedUS = lazyAppend(l.PlannedUS, us(r.Scheduled), r.TraceRow > 0, i)
	reasoned := r.Reasoning != ""
	l.TTFOUS = lazyAppend(l.TTFOUS, us(r.TTFO), reasoned, i)
	l.ReasoningTokens = lazyAppend(l.ReasoningTokens, r.ReasoningTokens, reasoned, i)
	l.addPart(r, i)
	if !r.OK() {
		l.Failures = append(l.Failures, RequestFailure{Index: i, Kind: r.ErrorKind, Reason: r.Error, ConnIdleUS: us(r.ConnIdle)})
	} else if r.StructuredValid != nil && !*r.StructuredValid {
		l.InvalidStructured = append(l.InvalidStructured, i)
		l.InvalidStructuredFinish = append(l.InvalidStructuredFinish, r.FinishReason)
	}
	if r.OK() && !r.HasTTFT() {
		l.EmptyAnswers = append(l.EmptyAnswers, i)
	}
}

// indexSet is the set of the request indexes idx.
func indexSet(idx []int) map[int]bool {
	set := make(map[int]bool, len(idx))
	for _, i := range idx {
		set[i] = true
	}
	return set
}
