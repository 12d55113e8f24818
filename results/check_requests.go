package results

import "fmt"

// requestLog checks a run's per-request log: columns of one length (turn
// and trace_row absent or the same), times and counts not negative nor absurd, and
// failure, invalid-answer and empty-answer indices that name a request of
// the log (an empty answer a successful one).
func (c *checker) requestLog(l *RequestLog) {
	n := l.Len()
	for _, col := range []struct {
		name string
		len  int
	}{{"ttft_us", len(l.TTFTUS)}, {"e2el_us", len(l.E2ELUS)}, {"itl_max_us", len(l.ITLMaxUS)},
		{"input_tokens", len(l.InputTokens)}, {"output_tokens", len(l.OutputTokens)}} {
		if col.len != n {
			c.fail(fmt.Sprintf("requests.%s has %d entries, start_us %d: the columns must be as long as each other", col.name, col.len, n))
			return
		}
	}
	for _, col := range []struct {
		name string
		have bool
		len  int
	}{{"turn", l.Turn != nil, len(l.Turn)}, {"trace_row", l.TraceRow != nil, len(l.TraceRow)}, {"planned_us", l.PlannedUS != nil, len(l.PlannedUS)},
		{"ttfo_us", l.TTFOUS != nil, len(l.TTFOUS)}, {"reasoning_tokens", l.ReasoningTokens != nil, len(l.ReasoningTokens)}} {
		if col.have && col.len != n {
			c.fail(fmt.Sprintf("requests.%s has %d entries, start_us %d", col.name, col.len, n))
			return
		}
	}
	if !c.partColumns(l) {
		return
	}
	const maxUS = int64(MaxLatencyMs * 1000)
	for _, col := range []struct {
		name  string
		v     []int64
		limit int64
	}{{"start_us", l.StartUS, int64(MaxDurationS * 1e6)}, {"planned_us", l.PlannedUS, int64(MaxDurationS * 1e6)}, {"ttft_us", l.TTFTUS, maxUS}, {"e2el_us", l.E2ELUS, maxUS}, {"itl_max_us", l.ITLMaxUS, maxUS}, {"ttfo_us", l.TTFOUS, maxUS}} {
		for i, v := range col.v {
			if v < 0 || v > col.limit {
				c.fail(fmt.Sprintf("requests.%s[%d] = %d: a time in µs must be between 0 and %d", col.name, i, v, col.limit))
				break
			}
		}
	}
	for _, col := range []struct {
		name string
		v    []int
	}{{"input_tokens", l.InputTokens}, {"output_tokens", l.OutputTokens}, {"turn", l.Turn}, {"trace_row", l.TraceRow}, {"reasoning_tokens", l.ReasoningTokens}} {
		for i, v := range col.v {
			if v < 0 {
				c.fail(fmt.Sprintf("requests.%s[%d] = %d: a count cannot be negative", col.name, i, v))
				break
			}
		}
	}
	for _, f := range l.Failures {
		if f.Index < 0 || f.Index >= n {
			c.fail(fmt.Sprintf("requests.failures names request %d of %d", f.Index, n))
			break
		}
		if !f.Kind.Valid() {
			c.fail(fmt.Sprintf("requests.failures: request %d has the unknown kind %q", f.Index, f.Kind))
			break
		}
		if f.ConnIdleUS < 0 || f.ConnIdleUS > int64(MaxDurationS*1e6) {
			c.fail(fmt.Sprintf("requests.failures: request %d has conn_idle_us = %d: a time in µs must be between 0 and %d", f.Index, f.ConnIdleUS, int64(MaxDurationS*1e6)))
			break
		}
	}
	for _, i := range l.InvalidStructured {
		if i < 0 || i >= n {
			c.fail(fmt.Sprintf("requests.invalid_structured names request %d of %d", i, n))
			break
		}
	}
	failed := l.failedSet()
	for _, i := range l.EmptyAnswers {
		if i < 0 || i >= n || failed[i] {
			c.fail(fmt.Sprintf("requests.empty_answers names request %d of %d, which is not a successful request", i, n))
			break
		}
	}
	if f := l.InvalidStructuredFinish; f != nil && len(f) != len(l.InvalidStructured) {
		c.fail(fmt.Sprintf("requests.invalid_structured_finish_reason has %d entries, invalid_structured %d: one finish_reason per invalid answer", len(f), len(l.InvalidStructured)))
	}
	for i, r := range l.InvalidStructuredFinish {
		if len(r) > MaxFinishReason {
			c.fail(fmt.Sprintf("requests.invalid_structured_finish_reason[%d] is %d bytes: a finish_reason is at most %d", i, len(r), MaxFinishReason))
			break
		}
	}
}
